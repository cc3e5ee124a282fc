import { mkdirSync } from "node:fs";
import {
  AnalyzeRequest,
  ApplyPlanRequest,
  ApplyRequest,
  BatchTriageRequest,
  createFileorg,
  FileorgError,
  migrate,
  ResolveRequest,
  ReviewError,
  RollbackRequest,
} from "@vetted/fileorg";
import { findBusyError, StoreError } from "@vetted/store";
import { openDatabase } from "@vetted/store/database";
import type { z } from "zod";
import type { CliSettings } from "../settings.js";
import { type Backend, BackendError, type Saved } from "./backend.js";

const ACTOR = { actor: "cli" };

/** Turns the engines' typed errors into {@link BackendError}s (same codes as the server answers). */
function toBackendError(err: unknown): unknown {
  // Another process (a server, another `vetted`) held the database's write lock too long.
  const busy = findBusyError(err);
  if (busy !== undefined) return new BackendError(busy.code, busy.message, busy.details);
  if (err instanceof FileorgError || err instanceof ReviewError || err instanceof StoreError) {
    return new BackendError(err.code, err.message, err.details);
  }
  return err;
}

/** Parses a request with the server's own schema, so a bad request is refused the same way. */
function parseRequest<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  const where = first === undefined || first.path.length === 0 ? "" : ` at /${first.path.join("/")}`;
  throw new BackendError(
    "VALIDATION_FAILED",
    `The request is invalid${where}: ${first?.message ?? "invalid"}`,
    { issues: parsed.error.issues },
  );
}

/** Wraps every method so engine errors surface as BackendErrors. */
function guarded<T extends object>(target: T): T {
  return new Proxy(target, {
    get(obj, key, receiver) {
      const value: unknown = Reflect.get(obj, key, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => unknown).apply(obj, args);
        } catch (err) {
          throw toBackendError(err);
        }
      };
    },
  });
}

/**
 * Opens the embedded database of the data directory (created on first use) as the server does: WAL, the one
 * writer, and another process's lock waited out `busyTimeoutMs` before `DATABASE_BUSY`.
 */
async function openLocalDatabase(settings: CliSettings) {
  mkdirSync(settings.dataDir, { recursive: true });
  const { db, client } = await openDatabase({
    url: settings.databaseUrl,
    busyTimeoutMs: settings.busyTimeoutMs,
  });
  await migrate(db);
  return { db, client };
}

/**
 * The standalone backend: the engines composed as the server composes them (`createFileorg`: core,
 * preferences, review with its hooks, inbox), over the embedded SQLite file of the data directory. Jobs
 * run in this process.
 */
export async function createLocalBackend(settings: CliSettings): Promise<Backend> {
  const { db, client } = await openLocalDatabase(settings);
  const { fileorg, preferences, review, inbox } = createFileorg({
    db,
    allowedRoots: settings.allowedRoots,
    dataDir: settings.dataDir,
    env: { VETTED_JOURNAL_KEY: settings.journalKey },
  });
  await fileorg.start();
  let closed = false;
  const backend: Backend = {
    where: "local",
    analyze: (request) => fileorg.analyze(parseRequest(AnalyzeRequest, request), ACTOR),
    apply: (request) => fileorg.apply(parseRequest(ApplyRequest, request), ACTOR),
    planApply: (request) => fileorg.planApply(parseRequest(ApplyPlanRequest, request)),
    rollback: (request) => fileorg.rollback(parseRequest(RollbackRequest, request), ACTOR),
    getJob: (jobId) => fileorg.getJob(jobId),
    listJobs: (query) => fileorg.listJobs(query),
    listEvents: (jobId, after) => fileorg.listEvents(jobId, after, 500),
    listRows: (jobId, query) => fileorg.listRows(jobId, query as Parameters<typeof fileorg.listRows>[1]),
    listConflicts: (jobId, query) => fileorg.listConflicts(jobId, query),
    resolveConflicts: (jobId, request) =>
      fileorg.resolveConflicts(jobId, parseRequest(ResolveRequest, request), ACTOR),
    viewManifest: (jobId) => fileorg.viewManifest(jobId),
    report: (jobId) => fileorg.report(jobId),
    reviewQueue: (jobId, query) => review.queue(jobId, query as Parameters<typeof review.queue>[1]),
    batchTriage: (jobId, request) =>
      review.batchTriage(jobId, parseRequest(BatchTriageRequest, request), ACTOR),
    draftRule: (jobId, rowIds) => review.draftFromExamples(jobId, rowIds),
    previewRule: (jobId, rule) =>
      review.previewRule(jobId, { rule } as Parameters<typeof review.previewRule>[1]),
    simulateRulesFile: (jobId, text) => review.simulateRulesFile(jobId, text),
    runRulesFile: (jobId, text) => review.runRulesFile(jobId, text, ACTOR),
    saveRule: async (rule) => (await preferences.save("review-rules", rule, ACTOR)) as Saved<typeof rule>,
    listStrategyPacks: async () => (await preferences.listStrategyPacks()).items,
    listWatchSources: async () => {
      const items = [];
      let cursor: string | undefined;
      do {
        const page = await preferences.list("watch-sources", { cursor, limit: 500 });
        items.push(...page.items);
        cursor = page.next_cursor ?? undefined;
      } while (cursor !== undefined);
      return items as Awaited<ReturnType<Backend["listWatchSources"]>>;
    },
    saveWatchSource: async (item) =>
      (await preferences.save("watch-sources", item, ACTOR)) as Awaited<
        ReturnType<Backend["saveWatchSource"]>
      >,
    scanInbox: async () => (await inbox.scan({})).items,
    analyzeInbox: (watchSourceId, batchId) => inbox.analyze(watchSourceId, batchId, ACTOR),
    startWatching: () => inbox.start(),
    async close() {
      if (closed) return;
      closed = true;
      await inbox.stop();
      await fileorg.stop();
      client.close();
    },
  };
  return guarded(backend);
}
