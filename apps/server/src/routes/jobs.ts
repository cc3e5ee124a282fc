import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AnalyzeRequest,
  ApplyRequest,
  AuditList,
  BatchEditRequest,
  CATEGORIES,
  CONFLICT_STATUSES,
  Conflict,
  ConflictList,
  EditResult,
  type FileorgEngine,
  type HubMessage,
  JOB_KINDS,
  JOB_STATUSES,
  Job,
  JobEventList,
  JobList,
  JobReport,
  ManifestPage,
  ManifestRow,
  ManifestView,
  REVIEW_BUCKETS,
  ResolveRequest,
  ROW_ACTIONS,
  ROW_STATUSES,
  RollbackRequest,
  RowPatch,
  RowPreview,
} from "@vetted/fileorg";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppDeps, AppEnv } from "../app.js";
import { ErrorEnvelope, ServerError } from "../errors.js";
import { Cursor } from "./common.js";

const TAG = ["jobs"];
const errors = (...codes: number[]) =>
  Object.fromEntries(
    codes.map((code) => [
      code,
      { description: "Error envelope", content: { "application/json": { schema: ErrorEnvelope } } },
    ]),
  );
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const body = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
const sse = (description: string) => ({
  200: { description, content: { "text/event-stream": { schema: z.string() } } },
  ...errors(404),
});

const JobIdParam = z.object({
  job_id: z
    .string()
    .min(1)
    .meta({ param: { name: "job_id", in: "path" } }),
});
const RowParam = JobIdParam.extend({
  row_id: z
    .string()
    .min(1)
    .meta({ param: { name: "row_id", in: "path" } }),
});
const Limit = z.coerce.number().int().min(1).max(1000).optional();
const JobsQuery = z.object({
  kind: z.enum(JOB_KINDS).optional(),
  status: z.enum(JOB_STATUSES).optional(),
  cursor: Cursor,
  limit: Limit,
});
const ManifestQuery = z.object({
  cursor: Cursor,
  limit: Limit,
  bucket: z.enum(REVIEW_BUCKETS).optional(),
  status: z.enum(ROW_STATUSES).optional(),
  category: z.enum(CATEGORIES).optional(),
  action: z.enum(ROW_ACTIONS).optional(),
  text: z.string().min(1).max(500).optional(),
});
const EventsQuery = z.object({
  after: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ description: "Only events with a greater sequence" }),
  limit: Limit,
});
const ResolveResult = z
  .object({ revision: z.number().int(), plan_hash: z.string(), conflicts: z.array(Conflict) })
  .meta({ id: "FileorgResolveResult" });
const IfMatch = z.object({
  "if-match": z
    .string()
    .optional()
    .meta({ description: "The manifest revision the edit is based on; 412 when stale" }),
});

/** Parses `If-Match: 3`, `"3"` or `W/"3"` into a revision. */
function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "*") return undefined;
  const n = Number(value.trim().replace(/^W\//, "").replaceAll('"', ""));
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new ServerError("BAD_REQUEST", "If-Match must be a manifest revision (a whole number).");
  }
  return n;
}

const actorOf = (c: Context<AppEnv>) => ({ actor: c.get("actor"), requestId: c.get("requestId") });

const HEARTBEAT_MS = 15_000;

/**
 * Streams hub messages as SSE: replays what is stored after the client's `Last-Event-ID` (or `after`), then
 * live messages, with a heartbeat comment every 15 s; stops when the client goes away or `until` says so.
 */
function streamEvents(
  c: Context<AppEnv>,
  engine: FileorgEngine,
  options: {
    idOf: (m: HubMessage) => number;
    replay: (afterId: number) => Promise<HubMessage[]>;
    matches: (m: HubMessage) => boolean;
    send: (stream: Parameters<Parameters<typeof streamSSE>[1]>[0], m: HubMessage) => Promise<void>;
    isLast?: (m: HubMessage) => boolean;
    after?: number | undefined;
  },
) {
  const header = Number(c.req.header("Last-Event-ID"));
  const start = Number.isSafeInteger(header) && header >= 0 ? header : (options.after ?? 0);
  return streamSSE(c, async (stream) => {
    let lastId = start;
    const queue: HubMessage[] = [];
    let wake: (() => void) | undefined;
    let closed = false;
    const off = engine.subscribe((m) => {
      if (!options.matches(m)) return;
      queue.push(m);
      wake?.();
    });
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      const emit = async (m: HubMessage) => {
        const id = options.idOf(m);
        if (id <= lastId) return false;
        lastId = id;
        await options.send(stream, m);
        return options.isLast?.(m) === true;
      };
      for (;;) {
        const stored = await options.replay(lastId);
        for (const m of stored) if (await emit(m)) return;
        if (stored.length < 500) break;
      }
      while (!closed) {
        const next = queue.shift();
        if (next !== undefined) {
          if (await emit(next)) return;
          continue;
        }
        const beat = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), HEARTBEAT_MS);
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        wake = undefined;
        if (beat && !closed) await stream.write(": heartbeat\n\n");
      }
    } finally {
      off();
    }
  });
}

/** Every `/api/jobs` route: jobs, manifests, conflicts, apply/rollback, streams, audit and reports. */
export function createJobRoutes(deps: AppDeps) {
  const engine = deps.fileorg;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs",
        tags: TAG,
        summary: "Jobs, newest first",
        request: { query: JobsQuery },
        responses: { 200: json(JobList, "A page of jobs") },
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
        responses: { 200: json(JobList, "A page of finished jobs") },
      }),
      async (c) => c.json(await engine.listJobs({ ...c.req.valid("query"), finished: true }), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/stream",
        tags: TAG,
        summary: "SSE of job changes (event `job`: a snapshot; `id:` is a global event id)",
        responses: sse("An event stream"),
      }),
      (c) =>
        streamEvents(c, engine, {
          idOf: (m) => m.id,
          replay: (after) => engine.eventsSince(after),
          matches: () => true,
          send: async (stream, m) => {
            const job = await engine.getJob(m.event.job_id);
            await stream.writeSSE({
              id: String(m.id),
              event: "job",
              data: JSON.stringify({ job, event: m.event }),
            });
          },
        }),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/analyze",
        tags: TAG,
        summary: "Analyze a folder into a manifest of proposed moves",
        request: body(AnalyzeRequest),
        responses: { 202: json(Job, "The queued analyze job"), ...errors(400, 403, 404) },
      }),
      async (c) => c.json(await engine.analyze(c.req.valid("json"), actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/apply",
        tags: TAG,
        summary: "Apply an analyze job's manifest (journaled; `dry_run` touches nothing)",
        request: body(ApplyRequest),
        responses: { 202: json(Job, "The queued apply job"), ...errors(400, 404, 409) },
      }),
      async (c) => c.json(await engine.apply(c.req.valid("json"), actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/rollback",
        tags: TAG,
        summary: "Roll back an apply job (all rows, or `row_ids`)",
        request: body(RollbackRequest),
        responses: { 202: json(Job, "The queued rollback job"), ...errors(400, 404, 409) },
      }),
      async (c) => c.json(await engine.rollback(c.req.valid("json"), actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}",
        tags: TAG,
        summary: "One job",
        request: { params: JobIdParam },
        responses: { 200: json(Job, "The job"), ...errors(404) },
      }),
      async (c) => c.json(await engine.getJob(c.req.valid("param").job_id), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/events",
        tags: TAG,
        summary: "A job's events after a sequence number",
        request: { params: JobIdParam, query: EventsQuery },
        responses: { 200: json(JobEventList, "Events, oldest first"), ...errors(404) },
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
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/events/stream",
        tags: TAG,
        summary: "SSE of a job's events (`id:` is the sequence; honours Last-Event-ID and `after`)",
        request: { params: JobIdParam, query: EventsQuery.pick({ after: true }) },
        responses: sse("An event stream"),
      }),
      async (c) => {
        const jobId = c.req.valid("param").job_id;
        await engine.getJob(jobId);
        return streamEvents(c, engine, {
          after: c.req.valid("query").after,
          idOf: (m) => m.event.seq,
          replay: async (after) =>
            (await engine.listEvents(jobId, after, 500)).items.map((event) => ({ id: event.seq, event })),
          matches: (m) => m.event.job_id === jobId,
          send: (stream, m) =>
            stream.writeSSE({ id: String(m.event.seq), event: m.event.type, data: JSON.stringify(m.event) }),
          isLast: (m) => m.event.type === "finished",
        });
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/stream",
        tags: TAG,
        summary: "SSE of a job's events plus a `job` snapshot after each (closes when the job finishes)",
        request: { params: JobIdParam, query: EventsQuery.pick({ after: true }) },
        responses: sse("An event stream"),
      }),
      async (c) => {
        const jobId = c.req.valid("param").job_id;
        await engine.getJob(jobId);
        return streamEvents(c, engine, {
          after: c.req.valid("query").after,
          idOf: (m) => m.event.seq,
          replay: async (after) =>
            (await engine.listEvents(jobId, after, 500)).items.map((event) => ({ id: event.seq, event })),
          matches: (m) => m.event.job_id === jobId,
          send: async (stream, m) => {
            await stream.writeSSE({
              id: String(m.event.seq),
              event: m.event.type,
              data: JSON.stringify(m.event),
            });
            await stream.writeSSE({ event: "job", data: JSON.stringify(await engine.getJob(jobId)) });
          },
          isLast: (m) => m.event.type === "finished",
        });
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest",
        tags: TAG,
        summary: "A page of an analyze job's manifest, filtered",
        request: { params: JobIdParam, query: ManifestQuery },
        responses: { 200: json(ManifestPage, "A page of rows"), ...errors(404, 409) },
      }),
      async (c) => {
        const page = await engine.listRows(c.req.valid("param").job_id, c.req.valid("query"));
        c.header("ETag", `"${page.revision}"`);
        return c.json(page, 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/batch",
        tags: TAG,
        summary: "Apply field patches to rows atomically (one revision bump); honours If-Match",
        request: { params: JobIdParam, headers: IfMatch, ...body(BatchEditRequest) },
        responses: {
          200: json(EditResult, "The new revision and the rows"),
          ...errors(400, 403, 404, 409, 412),
        },
      }),
      async (c) => {
        const result = await engine.applyPatches(
          c.req.valid("param").job_id,
          c.req.valid("json").operations,
          {
            ...actorOf(c),
            expectedRevision: parseIfMatch(c.req.header("If-Match")),
          },
        );
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/conflicts",
        tags: TAG,
        summary: "A manifest's conflicts",
        request: {
          params: JobIdParam,
          query: z.object({
            status: z.enum(CONFLICT_STATUSES).optional(),
            cursor: Cursor,
            limit: Limit,
          }),
        },
        responses: { 200: json(ConflictList, "Conflicts"), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.listConflicts(c.req.valid("param").job_id, c.req.valid("query")), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/manifest/conflicts/resolve",
        tags: TAG,
        summary: "Resolve conflicts (rename, skip, keep_both, manual) atomically",
        request: { params: JobIdParam, headers: IfMatch, ...body(ResolveRequest) },
        responses: {
          200: json(ResolveResult, "The conflicts after resolution"),
          ...errors(400, 403, 404, 409, 412),
        },
      }),
      async (c) =>
        c.json(
          await engine.resolveConflicts(c.req.valid("param").job_id, c.req.valid("json"), {
            ...actorOf(c),
            expectedRevision: parseIfMatch(c.req.header("If-Match")),
          }),
          200,
        ),
    )
    .openapi(
      createRoute({
        method: "patch",
        path: "/api/jobs/{job_id}/manifest/rows/{row_id}",
        tags: TAG,
        summary: "Edit one row, field by field; `If-Match: <revision>` → 412 when stale",
        request: { params: RowParam, headers: IfMatch, ...body(RowPatch) },
        responses: { 200: json(ManifestRow, "The row as it now is"), ...errors(400, 403, 404, 409, 412) },
      }),
      async (c) => {
        const { job_id, row_id } = c.req.valid("param");
        const result = await engine.applyPatches(job_id, [{ row_id, patch: c.req.valid("json") }], {
          ...actorOf(c),
          expectedRevision: parseIfMatch(c.req.header("If-Match")),
        });
        c.header("ETag", `"${result.revision}"`);
        const [row] = result.items;
        if (row === undefined) throw new ServerError("NOT_FOUND", `No row ${row_id}.`);
        return c.json(row, 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/view",
        tags: TAG,
        summary: "Grouped view: the target folder tree with counts, and summaries per bucket/category/status",
        request: { params: JobIdParam },
        responses: { 200: json(ManifestView, "The grouped view"), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.viewManifest(c.req.valid("param").job_id), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/manifest/{row_id}/preview",
        tags: TAG,
        summary: "A row's metadata and a safe preview (text lines, image size, PDF pages)",
        request: { params: RowParam },
        responses: { 200: json(RowPreview, "The preview"), ...errors(404, 409) },
      }),
      async (c) => {
        const { job_id, row_id } = c.req.valid("param");
        return c.json(await engine.previewRow(job_id, row_id), 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/cancel",
        tags: TAG,
        summary: "Cancel a job (cooperative; a finished job is returned unchanged)",
        request: { params: JobIdParam },
        responses: { 200: json(Job, "The job"), ...errors(404) },
      }),
      async (c) => c.json(await engine.cancel(c.req.valid("param").job_id, actorOf(c)), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/retry",
        tags: TAG,
        summary: "Retry a failed or cancelled job as a new job (`retry_of`)",
        request: { params: JobIdParam },
        responses: { 202: json(Job, "The new job"), ...errors(404, 409) },
      }),
      async (c) => c.json(await engine.retry(c.req.valid("param").job_id, actorOf(c)), 202),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/audit",
        tags: TAG,
        summary: "A job's hash-chained audit entries and whether the chain verifies",
        request: { params: JobIdParam, query: z.object({ cursor: Cursor, limit: Limit }) },
        responses: { 200: json(AuditList, "Audit entries, oldest first"), ...errors(404) },
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
        request: { params: JobIdParam },
        responses: { 200: json(JobReport, "The report"), ...errors(404) },
      }),
      async (c) => c.json(await engine.report(c.req.valid("param").job_id), 200),
    );
}
