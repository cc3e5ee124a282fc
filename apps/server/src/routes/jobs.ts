import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AnalyzeRequest,
  ApplyPlan,
  ApplyPlanRequest,
  ApplyRequest,
  AuditList,
  type FileorgEngine,
  type HubMessage,
  JOB_KINDS,
  JOB_STATUSES,
  Job,
  JobEventList,
  JobList,
  JobReport,
  RollbackRequest,
} from "@vetted/fileorg";
import { MAX_PAGE_LIMIT } from "@vetted/store";
import type { Context } from "hono";
import type { AppDeps, AppEnv } from "../deps.js";
import { streamEvents } from "../sse.js";
import {
  actorOf,
  bodyOf,
  errorResponses as errors,
  JobIdParams,
  jsonResponse,
  PageLimit,
  PageQuery,
  sseResponses,
} from "./common.js";
import { createManifestRoutes } from "./manifest.js";
import { createPreviewRoutes } from "./previews.js";

const TAG = ["jobs"];

const JobsQuery = PageQuery.extend({
  kind: z.enum(JOB_KINDS).optional(),
  status: z.enum(JOB_STATUSES).optional(),
});
const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Only events with a greater sequence" }),
  limit: PageLimit,
});
/** `GET` of one job's event stream (`?after=` or `Last-Event-ID` to resume). */
function jobStreamRoute<P extends string>(path: P, summary: string) {
  return createRoute({
    method: "get",
    path,
    tags: TAG,
    summary,
    request: { params: JobIdParams, query: EventsQuery.pick({ after: true }) },
    responses: sseResponses("An event stream"),
  });
}

/**
 * One job's events as SSE (`id:` is the event's sequence), each followed by a `job` snapshot when
 * `snapshots`; ends after the `finished` event. 404 before streaming when the job does not exist.
 */
async function streamJobEvents(
  c: Context<AppEnv>,
  engine: FileorgEngine,
  jobId: string,
  after: number | undefined,
  options: { heartbeatMs: number | undefined; snapshots: boolean },
) {
  await engine.getJob(jobId);
  return streamEvents(c, {
    source: jobEventSource(engine, jobId),
    heartbeatMs: options.heartbeatMs,
    after,
    idOf: (m) => m.event.seq,
    matches: (m) => m.event.job_id === jobId,
    frames: async (m) => [
      { event: m.event.type, data: JSON.stringify(m.event) },
      ...(options.snapshots ? [{ event: "job", data: JSON.stringify(await engine.getJob(jobId)) }] : []),
    ],
    isLast: (m) => m.event.type === "finished",
  });
}

/** `POST /api/jobs/<kind>`: queues a job of that kind from a JSON body and answers it with 202. */
function queueRoute<S extends z.ZodType>(
  kind: "analyze" | "apply" | "rollback",
  summary: string,
  body: S,
  ...statuses: Array<403 | 404 | 409>
) {
  return createRoute({
    method: "post",
    path: `/api/jobs/${kind}`,
    tags: TAG,
    summary,
    request: bodyOf(body),
    responses: { 202: jsonResponse(`The queued ${kind} job`, Job), ...errors(400, ...statuses) },
  });
}

/** One job's stored events after a sequence number, as hub messages (the source of its streams). */
function jobEventSource(engine: FileorgEngine, jobId: string) {
  return {
    replay: async (after: number): Promise<HubMessage[]> =>
      (await engine.listEvents(jobId, after, MAX_PAGE_LIMIT)).items.map((event) => ({
        id: event.seq,
        event,
      })),
    subscribe: (listener: (m: HubMessage) => void) => engine.subscribe(listener),
  };
}

/** The job lists, the all-jobs stream and the verbs that start a job. */
function createJobListRoutes(deps: AppDeps) {
  const engine = deps.fileorg;
  const heartbeatMs = deps.sseHeartbeatMs;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs",
        tags: TAG,
        summary: "Jobs, newest first",
        request: { query: JobsQuery },
        responses: { 200: jsonResponse("A page of jobs", JobList) },
      }),
      async (c) => c.json(await engine.listJobs(c.req.valid("query")), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/history",
        tags: TAG,
        summary: "Finished jobs, newest first",
        request: { query: JobsQuery.omit({ status: true }) },
        responses: { 200: jsonResponse("A page of finished jobs", JobList) },
      }),
      async (c) => c.json(await engine.listJobs({ ...c.req.valid("query"), finished: true }), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/stream",
        tags: TAG,
        summary:
          "SSE of job changes: first a `snapshot` of the queued, running and cancelling jobs, then one `job` event per change (`id:` is a global event id; with Last-Event-ID, the history after it instead of the snapshot)",
        responses: sseResponses("An event stream"),
      }),
      (c) =>
        streamEvents(c, {
          source: { replay: (after) => engine.eventsSince(after), subscribe: (l) => engine.subscribe(l) },
          heartbeatMs,
          snapshot: async () => {
            const snapshot = await engine.jobsSnapshot();
            return {
              id: snapshot.last_event_id,
              frames: [{ event: "snapshot", data: JSON.stringify(snapshot) }],
            };
          },
          idOf: (m) => m.id,
          frames: async (m) => [
            {
              event: "job",
              data: JSON.stringify({ job: await engine.getJob(m.event.job_id), event: m.event }),
            },
          ],
        }),
    )
    .openapi(
      queueRoute("analyze", "Analyze a folder into a manifest of proposed moves", AnalyzeRequest, 403, 404),
      async (c) => c.json(await engine.analyze(c.req.valid("json"), actorOf(c)), 202),
    )
    .openapi(
      queueRoute(
        "apply",
        "Apply an analyze job's manifest (journaled; `dry_run` touches nothing)",
        ApplyRequest,
        404,
        409,
      ),
      async (c) => c.json(await engine.apply(c.req.valid("json"), actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/apply/plan",
        tags: TAG,
        summary:
          "What an apply with these buckets/row_ids would move and leave, by bucket and why (unreviewed, conflict_open, skipped, blocked…), and the plan hash to apply exactly that; reads no file",
        request: bodyOf(ApplyPlanRequest),
        responses: { 200: jsonResponse("The apply plan", ApplyPlan), ...errors(400, 404, 409) },
      }),
      async (c) => c.json(await engine.planApply(c.req.valid("json")), 200),
    )
    .openapi(
      queueRoute("rollback", "Roll back an apply job (all rows, or `row_ids`)", RollbackRequest, 404, 409),
      async (c) => c.json(await engine.rollback(c.req.valid("json"), actorOf(c)), 202),
    );
}

/** One job: its state, events and stream, cancel and retry, audit and report. */
function createJobItemRoutes(deps: AppDeps) {
  const engine = deps.fileorg;
  const heartbeatMs = deps.sseHeartbeatMs;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}",
        tags: TAG,
        summary: "One job",
        request: { params: JobIdParams },
        responses: { 200: jsonResponse("The job", Job), ...errors(404) },
      }),
      async (c) => c.json(await engine.getJob(c.req.valid("param").job_id), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/events",
        tags: TAG,
        summary: "A job's events after a sequence number",
        request: { params: JobIdParams, query: EventsQuery },
        responses: { 200: jsonResponse("Events, oldest first", JobEventList), ...errors(404) },
      }),
      async (c) => {
        const q = c.req.valid("query");
        return c.json(
          await engine.listEvents(c.req.valid("param").job_id, q.after ?? 0, q.limit ?? 500),
          200,
        );
      },
    )
    .openapi(
      jobStreamRoute(
        "/api/jobs/{job_id}/events/stream",
        "SSE of a job's events (`id:` is the sequence; honours Last-Event-ID and `after`)",
      ),
      (c) => {
        const { job_id } = c.req.valid("param");
        return streamJobEvents(c, engine, job_id, c.req.valid("query").after, {
          heartbeatMs,
          snapshots: false,
        });
      },
    )
    .openapi(
      jobStreamRoute(
        "/api/jobs/{job_id}/stream",
        "SSE of a job's events plus a `job` snapshot after each (closes when the job finishes)",
      ),
      (c) => {
        const { job_id } = c.req.valid("param");
        return streamJobEvents(c, engine, job_id, c.req.valid("query").after, {
          heartbeatMs,
          snapshots: true,
        });
      },
    )
    .route("/", createJobActionRoutes(deps));
}

/** One job's cancel and retry, audit and report. */
function createJobActionRoutes(deps: AppDeps) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/cancel",
        tags: TAG,
        summary: "Cancel a job (cooperative; a finished job is returned unchanged)",
        request: { params: JobIdParams },
        responses: { 200: jsonResponse("The job", Job), ...errors(404) },
      }),
      async (c) => c.json(await engine.cancel(c.req.valid("param").job_id, actorOf(c)), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/retry",
        tags: TAG,
        summary: "Retry a failed or cancelled job as a new job (`retry_of`)",
        request: { params: JobIdParams },
        responses: { 202: jsonResponse("The new job", Job), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.retry(c.req.valid("param").job_id, actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/audit",
        tags: TAG,
        summary: "A job's hash-chained audit entries and whether the chain verifies",
        request: { params: JobIdParams, query: PageQuery },
        responses: { 200: jsonResponse("Audit entries, oldest first", AuditList), ...errors(404) },
      }),
      async (c) => {
        const q = c.req.valid("query");
        return c.json(await engine.listAudit(c.req.valid("param").job_id, q.cursor, q.limit ?? 200), 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/report",
        tags: TAG,
        summary: "A job's report: totals, counts, duplicates, conflicts, bytes moved, durations",
        request: { params: JobIdParams },
        responses: { 200: jsonResponse("The report", JobReport), ...errors(404) },
      }),
      async (c) => c.json(await engine.report(c.req.valid("param").job_id), 200),
    );
}

/** Every `/api/jobs` route: jobs, manifests, conflicts, apply/rollback, streams, audit and reports. */
export function createJobRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>()
    .route("/", createJobListRoutes(deps))
    .route("/", createJobItemRoutes(deps))
    .route("/", createManifestRoutes(deps))
    .route("/", createPreviewRoutes(deps));
}
