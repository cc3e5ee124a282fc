import type { InboxBatch, Job, StrategyPackView } from "@vetted/fileorg";
import { type Backend, BackendError, type PageQuery } from "./backend.js";

/** Where the HTTP backend sends its requests. */
export interface HttpBackendOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8787`. */
  server: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string | undefined;
}

type Query = Record<string, string | number | undefined>;

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

function pageQuery(query: PageQuery & { bucket?: string | undefined; status?: string | undefined }): Query {
  return { cursor: query.cursor, limit: query.limit, bucket: query.bucket, status: query.status };
}

/** Reads the server's error envelope `{error: {code, message, details?}}` into a BackendError. */
async function errorOf(response: Response): Promise<BackendError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
    if (typeof body.error?.code === "string") {
      return new BackendError(
        body.error.code,
        String(body.error.message ?? body.error.code),
        body.error.details,
      );
    }
  } catch {
    // not the envelope: reported below
  }
  return new BackendError("SERVER_ERROR", `The server answered ${response.status}: ${text.slice(0, 200)}`);
}

/**
 * The backend of `--server`: every verb is one call of the server's HTTP API, answering exactly what the
 * engines answer standalone (the server's routes are thin over the same engines).
 */
export function createHttpBackend(options: HttpBackendOptions): Backend {
  const base = options.server.replace(/\/+$/, "");
  const headers: Record<string, string> = { accept: "application/json" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : String(err);
      throw new BackendError("SERVER_UNREACHABLE", `Cannot reach the server at ${base}: ${cause}`);
    }
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
  const job = (id: string) => `/api/jobs/${encodeURIComponent(id)}`;

  return {
    where: base,
    analyze: (request) => call("POST", "/api/jobs/analyze", request),
    apply: (request) => call("POST", "/api/jobs/apply", request),
    planApply: (request) => call("POST", "/api/jobs/apply/plan", request),
    rollback: (request) => call("POST", "/api/jobs/rollback", request),
    getJob: (id) => call("GET", job(id)),
    listJobs: (query) => call("GET", `/api/jobs${queryString(pageQuery(query))}`),
    listEvents: (id, after) => call("GET", `${job(id)}/events${queryString({ after, limit: 500 })}`),
    listRows: (id, query) => call("GET", `${job(id)}/manifest${queryString(pageQuery(query))}`),
    listConflicts: (id, query) =>
      call("GET", `${job(id)}/manifest/conflicts${queryString(pageQuery(query))}`),
    resolveConflicts: (id, request) => call("POST", `${job(id)}/manifest/conflicts/resolve`, request),
    viewManifest: (id) => call("GET", `${job(id)}/manifest/view`),
    report: (id) => call("GET", `${job(id)}/report`),
    reviewQueue: (id, query) => call("GET", `${job(id)}/review-queue${queryString(pageQuery(query))}`),
    batchTriage: (id, request) => call("POST", `${job(id)}/review-queue/batch-triage`, request),
    draftRule: (id, rowIds) => call("POST", `${job(id)}/review-rules/from-examples`, { row_ids: rowIds }),
    previewRule: (id, rule) => call("POST", `${job(id)}/review-rules/preview`, { rule }),
    simulateRulesFile: (id, text) => call("POST", `${job(id)}/rules-file/simulate`, { text }),
    runRulesFile: (id, text) => call("POST", `${job(id)}/rules-file/run`, { text }),
    saveRule: (rule) => call("POST", "/api/preferences/review-rules", rule),
    listStrategyPacks: async () =>
      (await call<{ items: StrategyPackView[] }>("GET", "/api/preferences/strategy-packs")).items,
    listWatchSources: async () => {
      const items: Awaited<ReturnType<Backend["listWatchSources"]>> = [];
      let cursor: string | undefined;
      do {
        const page = await call<{ items: typeof items; next_cursor: string | null }>(
          "GET",
          `/api/preferences/watch-sources${queryString({ cursor, limit: 500 })}`,
        );
        items.push(...page.items);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      return items;
    },
    saveWatchSource: (item) => call("POST", "/api/preferences/watch-sources", item),
    scanInbox: async () => (await call<{ items: InboxBatch[] }>("POST", "/api/inbox/scan", {})).items,
    analyzeInbox: (watchSourceId, batchId) =>
      call<Job>("POST", "/api/inbox/analyze", { watch_source_id: watchSourceId, batch_id: batchId }),
    // The server runs its own inbox watchers.
    startWatching: async () => {},
    close: async () => {},
  };
}
