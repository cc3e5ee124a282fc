import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  CancelRunRequest,
  CreateRunInput,
  isTerminal,
  ResumeRequest,
  RetryRunRequest,
  RUN_STATUSES,
  Run,
  RunEvent,
  RunOtpSubmitRequest,
  type RunsEngine,
} from "@vetted/runs";
import { MAX_PAGE_LIMIT } from "@vetted/store";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.js";
import { resumeId, streamEvents } from "../sse.js";
import { errorResponse, IdempotencyHeaders, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const RunParams = z.object({ run_id: z.string().min(1) });
const RunPage = pageOf(Run, "RunPage");
const EventPage = pageOf(RunEvent, "RunEventPage");

const create = createRoute({
  method: "post",
  path: "/api/runs",
  tags: ["runs"],
  summary: "Start a run of a template (or a bare flow)",
  request: { headers: IdempotencyHeaders, body: jsonBody(CreateRunInput) },
  responses: {
    201: jsonResponse("The queued run (or the first answer to this Idempotency-Key)", Run),
    400: errorResponse("Invalid request"),
    404: errorResponse("No such template or flow"),
    422: errorResponse("PARAMS_INVALID or IDEMPOTENCY_KEY_REUSED"),
    503: errorResponse("BROWSER_UNAVAILABLE: the flow has browser steps and no browser is installed"),
  },
});
const list = createRoute({
  method: "get",
  path: "/api/runs",
  tags: ["runs"],
  summary: "List runs, newest first, optionally by status, template, flow or creation time",
  request: {
    query: PageQuery.extend({
      status: z.enum(RUN_STATUSES).optional(),
      template_id: z.string().min(1).optional(),
      flow_id: z.string().min(1).optional(),
      created_after: z.iso
        .datetime({ offset: true })
        .optional()
        .meta({ description: "Only runs created at or after this instant" }),
      created_before: z.iso
        .datetime({ offset: true })
        .optional()
        .meta({ description: "Only runs created before this instant" }),
    }),
  },
  responses: { 200: jsonResponse("A page of runs", RunPage) },
});
const get = createRoute({
  method: "get",
  path: "/api/runs/{run_id}",
  tags: ["runs"],
  summary: "Get a run (poll until its status is terminal)",
  request: { params: RunParams },
  responses: { 200: jsonResponse("The run", Run), 404: errorResponse("No such run") },
});
const resumeResponses = {
  200: jsonResponse("The run with its new status; keep polling", Run),
  400: errorResponse("Invalid body (unknown kind, missing field)"),
  404: errorResponse("No such run"),
  409: errorResponse("RUN_NOT_WAITING (another resume won, or the run ended) or VERSION_CONFLICT"),
  422: errorResponse("RESUME_KIND_NOT_ALLOWED, INPUT_INVALID, OTP_UNAVAILABLE or IDEMPOTENCY_KEY_REUSED"),
};
const resume = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/resume",
  tags: ["runs"],
  summary: "Resume a paused run: exactly one concurrent resume wins",
  request: { params: RunParams, headers: IdempotencyHeaders, body: jsonBody(ResumeRequest) },
  responses: resumeResponses,
});
const otp = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/otp",
  tags: ["runs"],
  summary: "Submit a one-time code (v2); without otp_code the run's OTP source supplies it",
  request: { params: RunParams, headers: IdempotencyHeaders, body: jsonBody(RunOtpSubmitRequest) },
  responses: resumeResponses,
});
const cancel = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/cancel",
  tags: ["runs"],
  summary: "Cancel a run from any non-terminal status (a running step is aborted)",
  request: { params: RunParams, query: CancelRunRequest },
  responses: {
    200: jsonResponse("The cancelled run", Run),
    400: errorResponse("VALIDATION_FAILED: expected_version is not a positive integer"),
    404: errorResponse("No such run"),
    409: errorResponse("RUN_FINISHED, or VERSION_CONFLICT: expected_version is stale"),
  },
});
const retry = createRoute({
  method: "post",
  path: "/api/runs/{run_id}/retry",
  tags: ["runs"],
  summary: "Retry a failed or cancelled run from the step it stopped at, as a new run (once per run)",
  description:
    "A new run of the same flow snapshot, template, policies and params, with the vars the earlier steps set, starting at the step the run stopped at (its run_created event names retry_of and the skipped steps). Approvals do not carry over. A run is retried at most once: a second retry answers 200 with the first retry's run.",
  request: { params: RunParams, body: jsonBody(RetryRunRequest) },
  responses: {
    201: jsonResponse("The retry, queued", Run),
    200: jsonResponse("The run was already retried: the retry it has", Run),
    404: errorResponse("No such run"),
    409: errorResponse(
      "RUN_NOT_RETRYABLE: the run did not fail or get cancelled, or stopped after its last step",
    ),
    422: errorResponse("PARAMS_INVALID: a secret param of the template is missing or unknown"),
    503: errorResponse("BROWSER_UNAVAILABLE: the steps to retry need a browser and none is installed"),
  },
});
const events = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/events",
  tags: ["runs"],
  summary: "The run's append-only event log, oldest first",
  request: {
    params: RunParams,
    query: z.object({
      cursor: z.string().min(1).optional().meta({ description: "A next_cursor of this list" }),
      after: z.coerce.number().int().min(0).optional().meta({ description: "Only events with a greater id" }),
      limit: z.coerce.number().int().min(1).max(500).optional(),
    }),
  },
  responses: { 200: jsonResponse("A page of events", EventPage), 404: errorResponse("No such run") },
});
const stream = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/events/stream",
  tags: ["runs"],
  summary: "The event log as server-sent events (honours Last-Event-ID; ends after the run ends)",
  request: { params: RunParams },
  responses: {
    200: {
      description: "text/event-stream of RunEvent",
      content: { "text/event-stream": { schema: z.string() } },
    },
    404: errorResponse("No such run"),
  },
});

/** Every `/api/runs` route. */
export function createRunRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) =>
      c.json(
        await runs.createRun(c.req.valid("json"), {
          idempotencyKey: c.req.valid("header")["idempotency-key"],
        }),
        201,
      ),
    )
    .openapi(list, async (c) => c.json(await runs.listRuns(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await runs.getRun(c.req.valid("param").run_id), 200))
    .openapi(resume, async (c) =>
      c.json(
        await runs.resumeRun(c.req.valid("param").run_id, c.req.valid("json"), {
          idempotencyKey: c.req.valid("header")["idempotency-key"],
          answeredBy: c.get("actor"),
        }),
        200,
      ),
    )
    .openapi(otp, async (c) =>
      c.json(
        await runs.submitOtp(c.req.valid("param").run_id, c.req.valid("json"), {
          idempotencyKey: c.req.valid("header")["idempotency-key"],
          answeredBy: c.get("actor"),
        }),
        200,
      ),
    )
    .openapi(cancel, async (c) =>
      c.json(await runs.cancelRun(c.req.valid("param").run_id, c.req.valid("query")), 200),
    )
    .openapi(retry, async (c) => {
      const { run, created } = await runs.retryRun(c.req.valid("param").run_id, c.req.valid("json"), {
        by: c.get("actor"),
      });
      return created ? c.json(run, 201) : c.json(run, 200);
    })
    .openapi(events, async (c) => {
      const q = c.req.valid("query");
      return c.json(await runs.listEvents(c.req.valid("param").run_id, q), 200);
    })
    .openapi(stream, async (c) => {
      const runId = c.req.valid("param").run_id;
      const run = await runs.getRun(runId); // 404 before the stream starts
      return streamRunEvents(c, runs, runId, isTerminal(run.status), deps.sseHeartbeatMs);
    });
}

/** Whether the event ends its run's stream (the run reached a terminal status). */
function endsRun(event: RunEvent): boolean {
  const to = event.data.to;
  return (
    event.type === "status_changed" &&
    typeof to === "string" &&
    (RUN_STATUSES as readonly string[]).includes(to) &&
    isTerminal(to as Run["status"])
  );
}

/**
 * A run's events as server-sent events through the one SSE helper: stored events after `Last-Event-ID`
 * first, then live ones from the engine's event hub (no polling per client); a run that had already ended
 * ends the stream once its stored events are sent.
 */
function streamRunEvents(
  c: Context<AppEnv>,
  runs: RunsEngine,
  runId: string,
  ended: boolean,
  heartbeatMs: number | undefined,
) {
  const start = resumeId(c, undefined);
  return streamEvents<RunEvent>(c, {
    source: {
      replay: async (afterId) =>
        (await runs.listEvents(runId, { after: afterId, limit: MAX_PAGE_LIMIT })).items,
      // The hub sends its backlog from `start` first; events already replayed are skipped by id.
      subscribe: (listener) =>
        runs.subscribe(runId, start, (batch) => {
          for (const event of batch) listener(event);
        }),
    },
    idOf: (event) => event.id,
    frames: (event) => [{ event: event.type, data: JSON.stringify(event) }],
    isLast: endsRun,
    endAfterReplay: ended,
    heartbeatMs,
  });
}
