import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { RecoverPlan } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, jsonResponse } from "./common.js";

const recoverPlan = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/recover-plan",
  tags: ["runs"],
  summary: "What a person can do about a waiting, failed or cancelled run, best action first",
  request: { params: z.object({ run_id: z.string().min(1) }) },
  responses: {
    200: jsonResponse("The recovery plan", RecoverPlan),
    404: errorResponse("No such run"),
    409: errorResponse("RUN_NOT_RECOVERABLE: the run is queued, running or succeeded"),
  },
});

/** `GET /api/runs/{run_id}/recover-plan`. */
export function createRunRecoveryRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>().openapi(recoverPlan, async (c) =>
    c.json(await runs.recoverPlan(c.req.valid("param").run_id), 200),
  );
}
