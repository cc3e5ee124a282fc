import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "../app.js";

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
      }),
    ),
  })
  .meta({ id: "InboxScan" });

/** `/api/inbox/scan`: the new stable files of every enabled watch source. */
export function createInboxRoutes(deps: Pick<AppDeps, "inbox">) {
  return new OpenAPIHono<AppEnv>().openapi(
    createRoute({
      method: "post",
      path: "/api/inbox/scan",
      tags: ["inbox"],
      summary: "For each enabled watch source, its new stable files since its last analyze, as a batch",
      responses: {
        200: {
          description: "One batch per enabled source",
          content: { "application/json": { schema: InboxScan } },
        },
      },
    }),
    async (c) => c.json(await deps.inbox.scan(), 200),
  );
}
