import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Job } from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { actorOf, bodyOf, errorResponse, jsonResponse, PageQuery } from "./common.js";

const InboxFile = z.object({
  path: z.string().meta({ description: "Absolute path" }),
  size: z.number().int(),
  mtime: z.number().int().meta({ description: "Modification time, epoch milliseconds" }),
});

const InboxScan = z
  .object({
    items: z.array(
      z.object({
        watch_source_id: z.string(),
        batch_id: z.string().nullable().meta({
          description: "Derived from the exact set of (path, size, mtime); null when nothing is new",
        }),
        files: z.array(InboxFile),
        error: z.object({ code: z.string(), message: z.string() }).optional().meta({
          description:
            "Why the source was skipped and nothing of it listed: its folder now resolves outside the allowed roots (PATH_OUTSIDE_ROOT) or is gone",
        }),
      }),
    ),
    next_cursor: z.string().nullable(),
  })
  .meta({ id: "InboxScan" });

const InboxAnalyzeRequest = z
  .object({
    watch_source_id: z.string().min(1),
    batch_id: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "The batch a scan answered; refused when the files changed since" }),
  })
  .meta({ id: "InboxAnalyzeRequest" });

/** `/api/inbox/scan` and `/api/inbox/analyze`: the new stable files of watch sources, and analyzing them. */
export function createInboxRoutes(deps: Pick<AppDeps, "inbox">) {
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "post",
        path: "/api/inbox/analyze",
        tags: ["inbox"],
        summary: "Starts an analyze job over exactly a source's current batch of new stable files",
        request: bodyOf(InboxAnalyzeRequest),
        responses: {
          202: jsonResponse("The analyze job", Job),
          400: errorResponse("Invalid body"),
          404: errorResponse("WATCH_SOURCE_NOT_FOUND"),
          409: errorResponse("BATCH_CHANGED or INBOX_EMPTY"),
        },
      }),
      async (c) => {
        const body = c.req.valid("json");
        const job = await deps.inbox.analyze(body.watch_source_id, body.batch_id, actorOf(c));
        return c.json(job, 202);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/inbox/scan",
        tags: ["inbox"],
        summary: "For each enabled watch source, its new stable files since its last analyze, as a batch",
        request: { query: PageQuery },
        responses: {
          200: jsonResponse("One batch per enabled source (one page of sources, by id)", InboxScan),
          400: errorResponse("Invalid cursor or limit"),
        },
      }),
      async (c) => c.json(await deps.inbox.scan(c.req.valid("query")), 200),
    );
}
