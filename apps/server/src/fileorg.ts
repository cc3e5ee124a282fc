import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  autoApplySafeRows,
  createFileorgEngine,
  createInboxEngine,
  createPreferencesEngine,
  createReviewEngine,
  type FileorgEngine,
  type FileorgEngineOptions,
  type InboxEngine,
  JOURNAL_KEY_FILE,
  type Job,
  type PreferencesEngine,
  type ReviewEngine,
} from "@vetted/fileorg";
import { SECRETS_KEY_FILE } from "@vetted/runs";
import type { Config } from "./config.js";
import type { Database } from "./db.js";
import type { Logger } from "./logger.js";

/** The file organizer's engines, wired together. */
export interface FileorgDeps {
  fileorg: FileorgEngine;
  preferences: PreferencesEngine;
  review: ReviewEngine;
  inbox: InboxEngine<Job>;
}

/** Options of {@link createFileorgDeps}. */
export interface FileorgDepsOptions {
  logger: Logger;
  /** Options of the core engine (allowed roots, journal key, data directory…). */
  fileorg?: Omit<FileorgEngineOptions, "db"> | undefined;
  /** How often the inbox re-reads watch sources (ms). */
  inboxRefreshMs?: number | undefined;
}

/** The SQLite file of a `file:` database URL (`file:/abs`, `file:rel`, `file:///abs`), or undefined. */
function databaseFileOf(url: string): string | undefined {
  if (!url.startsWith("file:")) return undefined;
  const path = url.startsWith("file://")
    ? fileURLToPath(url.split("?")[0] ?? url)
    : url.slice(5).split("?")[0];
  return path === undefined || path === "" ? undefined : isAbsolute(path) ? path : resolve(path);
}

/**
 * What the file organizer must never plan, move or write into, whatever the roots: the data directory, the
 * database file with its `-wal`, `-shm` and `-journal` files (wherever `DATABASE_URL` puts it), and both
 * key files.
 */
export function serverDataPaths(config: Pick<Config, "dataDir" | "databaseUrl">): string[] {
  const database = databaseFileOf(config.databaseUrl);
  const databaseFiles =
    database === undefined ? [] : ["", "-wal", "-shm", "-journal"].map((suffix) => `${database}${suffix}`);
  return [
    config.dataDir,
    ...databaseFiles,
    join(config.dataDir, JOURNAL_KEY_FILE),
    join(config.dataDir, SECRETS_KEY_FILE),
  ];
}

/** Builds the file organizer's engines over one database; none is started. */
export function createFileorgDeps(db: Database, options: FileorgDepsOptions): FileorgDeps {
  const fileorg = createFileorgEngine({ ...options.fileorg, db });
  // Stored paths (watch folders, output roots) are confined to the core engine's allowed roots.
  const preferences = createPreferencesEngine({ db, guard: fileorg.guard });
  const review = createReviewEngine({ db, fileorg, preferences });
  const inbox = createInboxEngine<Job>({
    db,
    preferences,
    guard: fileorg.guard,
    analyzeFiles: (source, files, actor) => review.analyzeInboxFiles(source, files, actor),
    // Sources with auto_apply "auto_safe": their stable batches are analyzed and the safe rows applied.
    autoApply: autoApplySafeRows(fileorg),
    ...(options.inboxRefreshMs === undefined ? {} : { refreshIntervalMs: options.inboxRefreshMs }),
    onWarning: (message, details) => options.logger.warn(message, details),
  });
  // Files of an inbox batch whose analyze job did not succeed are offered again by the next scan.
  fileorg.subscribe((message) => {
    const { event } = message;
    if (event.type !== "finished" || event.data.status === "succeeded") return;
    inbox.forgetJob(event.job_id).catch((err: unknown) =>
      options.logger.warn("inbox could not forget a failed job's batch", {
        job_id: event.job_id,
        error: String(err),
      }),
    );
  });
  return { fileorg, preferences, review, inbox };
}
