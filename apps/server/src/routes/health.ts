import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { pingDatabase } from "../db.js";
import type { AppDeps, AppEnv } from "../deps.js";
import { jsonResponse } from "./common.js";

export const BrowserStatus = z
  .object({
    available: z.boolean(),
    executable_path: z.string().optional(),
    running: z.boolean(),
    contexts: z.number().int(),
    queued: z.number().int(),
    restarts: z.number().int(),
    reason: z.string().optional().meta({ description: "Why there is no browser, with what to do" }),
  })
  .meta({
    id: "BrowserStatus",
    description: "The browser host; an unavailable browser does not degrade health",
  });

const Health = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    uptime_s: z.number(),
    database: z.object({ ok: z.boolean(), latency_ms: z.number(), kind: z.enum(["file", "remote"]) }),
    browser: BrowserStatus,
  })
  .meta({ id: "Health" });

function healthRoute(path: string) {
  return createRoute({
    method: "get",
    path,
    tags: ["health"],
    summary: "Liveness and database reachability",
    security: [],
    responses: {
      200: jsonResponse("The server and its database answer", Health),
      503: jsonResponse("The database does not answer", Health),
    },
  });
}

/** `GET /healthz` and `GET /api/health`: open without a token, report version and database reachability. */
export function createHealthRoutes(deps: AppDeps) {
  const started = Date.now();
  const handler = async () => {
    const database = await pingDatabase(deps.database.client);
    return {
      status: database.ok ? ("ok" as const) : ("degraded" as const),
      version: deps.version,
      uptime_s: Math.round((Date.now() - started) / 1000),
      database: { ...database, kind: deps.databaseIsFile ? ("file" as const) : ("remote" as const) },
      browser: deps.browser.status(),
    };
  };
  const answer = async (c: Context<AppEnv>) => {
    const body = await handler();
    return c.json(body, body.database.ok ? 200 : 503);
  };
  return new OpenAPIHono<AppEnv>()
    .openapi(healthRoute("/healthz"), answer)
    .openapi(healthRoute("/api/health"), answer);
}
