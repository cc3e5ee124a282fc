import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileorg, type Fileorg, type FileorgOptions, JOURNAL_KEY_FILE } from "@vetted/fileorg";
import { SECRETS_KEY_FILE } from "@vetted/runs";
import type { Config } from "./config.js";
import type { Database } from "./db.js";
import type { Logger } from "./logger.js";

/** The file organizer's engines, wired together. */
export type FileorgDeps = Fileorg;

/** Options of {@link createFileorgDeps}. */
export interface FileorgDepsOptions {
  logger: Logger;
  /** Options of the core engine (allowed roots, journal key, data directory…). */
  fileorg?: Omit<FileorgOptions, "db" | "inbox"> | undefined;
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

/** Builds the file organizer's engines over one database (`createFileorg`: composed once); none is started. */
export function createFileorgDeps(db: Database, options: FileorgDepsOptions): FileorgDeps {
  return createFileorg({
    ...options.fileorg,
    db,
    inbox: {
      // Sources with auto_apply "auto_safe": their stable batches are analyzed and the safe rows applied.
      autoApplySafe: true,
      ...(options.inboxRefreshMs === undefined ? {} : { refreshIntervalMs: options.inboxRefreshMs }),
      onWarning: (message, details) => options.logger.warn(message, details),
    },
  });
}
