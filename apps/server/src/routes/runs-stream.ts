import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { RUN_CHANGE_TYPES, type RunChange } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { resumeId, streamEvents } from "../sse.js";
import { sseResponses } from "./common.js";

const changes = createRoute({
  method: "get",
  path: "/api/runs/stream",
  tags: ["runs"],
  summary: "The runs list's changes as server-sent events (a run created, a run that changed status)",
  description: [
    'Without `Last-Event-ID`: first a `ready` event whose data is `{ "last_event_id": n }` (where the stream',
    "stands; `id:` n), then one `change` event per change from then on. With `Last-Event-ID`: every change",
    "after it first, then the live ones (an id past the newest change, kept from another database, counts as none). Each `change` event's data is a `RunChange`",
    `(\`{ id, run_id, type: ${RUN_CHANGE_TYPES.join(" | ")}, status, from, at }\`; \`id:\` is its position`,
    "among the changes of all runs, increasing). Moving into or out of `waiting_otp`/`waiting_user` is a",
    "`status_changed`. Changes made by other server processes on the same database arrive within about a",
    "second. A `: heartbeat` comment is sent after 15 s of silence.",
  ].join(" "),
  responses: sseResponses("text/event-stream of `ready` and `change` events"),
});

/**
 * `GET /api/runs/stream`: registered before `/api/runs/{run_id}` so `stream` is never read as a run id. Fed
 * by the run engine's change hub (one query per commit batch for all followers, no poll per client).
 */
export function createRunStreamRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>().openapi(changes, async (c) => {
    const head = await runs.changesHead();
    const resumed = resumeId(c, -1); // -1: no valid Last-Event-ID
    // A new follower starts at the head: it wants what happens from now on, not the whole history. So does
    // one whose Last-Event-ID lies past the head (it came from another database).
    const start = resumed >= 0 && resumed <= head ? resumed : head;
    return streamEvents<RunChange>(c, {
      source: {
        replay: (afterId) => runs.listChanges(afterId, 500),
        subscribe: (listener) =>
          runs.subscribeChanges(start, (batch) => {
            for (const change of batch) listener(change);
          }),
      },
      snapshot: async () => ({
        id: start,
        frames: [{ event: "ready", data: JSON.stringify({ last_event_id: start }) }],
      }),
      idOf: (change) => change.id,
      frames: (change) => [{ event: "change", data: JSON.stringify(change) }],
      heartbeatMs: deps.sseHeartbeatMs,
      head,
    });
  });
}
