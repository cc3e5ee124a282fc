import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { LiveFrame } from "@vetted/runs";
import { streamSSE } from "hono/streaming";
import type { AppDeps, AppEnv } from "../deps.js";
import { SSE_HEARTBEAT_MS } from "../sse.js";
import { bodyOf, errorResponses, jsonResponse } from "./common.js";

const RunParams = z.object({
  run_id: z
    .string()
    .min(1)
    .meta({ param: { name: "run_id", in: "path" } }),
});

const Holder = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/)
  .meta({
    description:
      "Who holds control: an id the console makes per tab; recorded with the actor in the run's events",
  });

const Coord = z.number().finite().min(0).max(10_000);
const Delta = z.number().finite().min(-10_000).max(10_000);

/** One input to a taken-over page (coordinates in CSS pixels of the page viewport the frames carry). */
export const LiveInputBody = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("click"),
      x: Coord,
      y: Coord,
      button: z.enum(["left", "right", "middle"]).optional(),
    }),
    z.object({ type: z.literal("scroll"), x: Coord, y: Coord, dx: Delta, dy: Delta }),
    z.object({
      type: z.literal("key"),
      key: z
        .string()
        .min(1)
        .max(32)
        .meta({ description: "A key name as in KeyboardEvent.key (Enter, Tab, ArrowDown, a, …)" }),
    }),
    z.object({ type: z.literal("type"), text: z.string().min(1).max(2_000) }),
  ])
  .meta({ id: "LiveInput" });

const InputRequest = z.object({ holder: Holder, input: LiveInputBody }).meta({ id: "LiveInputRequest" });
const HolderRequest = z.object({ holder: Holder }).meta({ id: "LiveHolderRequest" });
const Control = z.object({ by: z.string(), since: z.number().int() }).meta({ id: "TakeoverControl" });
const LiveStatus = z.object({ live: z.boolean(), in_control: Control.nullable() }).meta({ id: "LiveStatus" });
const Ok = z.object({ ok: z.literal(true) });

const STATE_ERRORS =
  "409: TAKEOVER_NOT_WAITING (the run is not waiting at a gate), TAKEOVER_NO_BROWSER (no page to take over), TAKEOVER_NOT_IN_CONTROL, TAKEOVER_IN_CONTROL_ELSEWHERE";

const stream = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/live",
  tags: ["runs"],
  summary: "The live page of a run waiting at a gate, as server-sent events",
  description: [
    "A `frame` event a few times a second while the page changes (the latest at once), its data",
    "`{ data, width, height, at }`: a base64 JPEG and the page viewport in CSS pixels (input coordinates are",
    "in that space). An `end` event when the page closes (the run resumed, ended or its page was taken",
    "back). A `: heartbeat` comment after 15 s of silence.",
    STATE_ERRORS,
  ].join(" "),
  request: { params: RunParams },
  responses: {
    200: {
      description: "text/event-stream of `frame` events",
      content: { "text/event-stream": { schema: z.string() } },
    },
    ...errorResponses(404, 409),
  },
});

const status = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/live/status",
  tags: ["runs"],
  summary: "Whether this server holds the waiting run's page, and who is in control",
  request: { params: RunParams },
  responses: { 200: jsonResponse("Live status", LiveStatus), ...errorResponses(404) },
});

const control = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/live/control",
  tags: ["runs"],
  summary: "Take control of the waiting run's page (recorded as takeover_started)",
  description: STATE_ERRORS,
  request: { params: RunParams, ...bodyOf(HolderRequest) },
  responses: { 200: jsonResponse("Now in control", Control), ...errorResponses(400, 404, 409) },
});

const input = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/live/input",
  tags: ["runs"],
  summary: "Send a click, scroll, key press or text to the taken-over page (recorded, typed text redacted)",
  description: `The page's outbound guard applies: a request to a protected payment provider is stopped and recorded as takeover_blocked. ${STATE_ERRORS}`,
  request: { params: RunParams, ...bodyOf(InputRequest) },
  responses: { 200: jsonResponse("Sent to the page", Ok), ...errorResponses(400, 404, 409) },
});

const handBack = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/live/hand-back",
  tags: ["runs"],
  summary: "Hand the page back: its URL and storage are kept for the resume (recorded as takeover_ended)",
  description: `Answer the gate afterwards as usual (POST /api/runs/{run_id}/resume). ${STATE_ERRORS}`,
  request: { params: RunParams, ...bodyOf(HolderRequest) },
  responses: { 200: jsonResponse("Handed back", Ok), ...errorResponses(400, 404, 409) },
});

/** Who is in control, as recorded: the request's actor and the console's holder id. */
function byOf(actor: string, holder: string): string {
  return `${actor}:${holder}`;
}

/** `/api/runs/{run_id}/live…`: watching and taking over the page of a run waiting at a gate. */
export function createRunLiveRoutes(deps: AppDeps) {
  const { runs } = deps;
  const heartbeatMs = deps.sseHeartbeatMs ?? SSE_HEARTBEAT_MS;
  return new OpenAPIHono<AppEnv>()
    .openapi(status, async (c) => c.json(await runs.liveStatus(c.req.valid("param").run_id), 200))
    .openapi(control, async (c) => {
      const by = byOf(c.get("actor"), c.req.valid("json").holder);
      return c.json(await runs.takeControl(c.req.valid("param").run_id, by), 200);
    })
    .openapi(input, async (c) => {
      const body = c.req.valid("json");
      await runs.sendInput(c.req.valid("param").run_id, byOf(c.get("actor"), body.holder), body.input);
      return c.json({ ok: true as const }, 200);
    })
    .openapi(handBack, async (c) => {
      const by = byOf(c.get("actor"), c.req.valid("json").holder);
      await runs.handBack(c.req.valid("param").run_id, by);
      return c.json({ ok: true as const }, 200);
    })
    .openapi(stream, async (c) => {
      const frames: LiveFrame[] = [];
      let wake: (() => void) | undefined;
      // Opened before the stream starts: a run that is not waiting, or has no page, is a 4xx, not a stream.
      const view = await runs.openLiveView(c.req.valid("param").run_id, (frame) => {
        frames.length = 0; // only the newest frame is worth sending to a slow reader
        frames.push(frame);
        wake?.();
      });
      view.signal.addEventListener("abort", () => wake?.(), { once: true });
      return streamSSE(c, async (sse) => {
        sse.onAbort(() => view.close());
        try {
          while (!sse.aborted && !view.signal.aborted) {
            const frame = frames.shift();
            if (frame !== undefined) {
              await sse.writeSSE({ event: "frame", data: JSON.stringify(frame) });
              continue;
            }
            const idle = await new Promise<boolean>((resolve) => {
              const timer = setTimeout(() => resolve(true), heartbeatMs);
              wake = () => {
                clearTimeout(timer);
                wake = undefined;
                resolve(false);
              };
            });
            if (idle && !sse.aborted) await sse.write(": heartbeat\n\n");
          }
          if (!sse.aborted) await sse.writeSSE({ event: "end", data: "{}" });
        } finally {
          view.close();
        }
      });
    });
}
