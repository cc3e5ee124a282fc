import type { Config } from "./config.js";
import type { OpenDatabase } from "./db.js";

/**
 * The configured database could not be opened, reached or migrated at start-up. Its message is one line
 * naming the database (never its credentials) and the underlying cause: a driver's own error is buried
 * under "Failed query: CREATE TABLE…" and "fetch failed".
 */
export class DatabaseStartupError extends Error {
  override readonly name = "DatabaseStartupError";
  readonly code = "DATABASE_UNUSABLE";
  constructor(databaseUrl: string, cause: unknown) {
    super(`cannot use the database ${displayDatabaseUrl(databaseUrl)}: ${describeCause(cause)}`, { cause });
  }
}

/** The database URL fit for a log line: a remote one without user, password or query (`?authToken=`). */
export function displayDatabaseUrl(databaseUrl: string): string {
  if (databaseUrl.startsWith("file:")) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
  } catch {
    return "(an unparsable DATABASE_URL)";
  }
}

type DatabaseConfig = Pick<Config, "databaseUrl" | "databaseAuthToken" | "dbBusyTimeoutMs">;

/** The longest one message of a cause chain is shown. */
const MAX_MESSAGE = 300;

const clip = (line: string) => (line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line);

/** How deep a cause chain is followed (a cycle or a freak chain must not hang start-up). */
const MAX_CAUSES = 8;

/**
 * The messages along an error's `cause` chain on one line, outermost first, e.g. `fetch failed: connect
 * ECONNREFUSED 127.0.0.1:9`. A message that only quotes the SQL that failed (Drizzle's "Failed query")
 * is left out: the cause below it says why; so is one an outer message already says (libsql repeats its
 * cause's message after its code).
 */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSES && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    // One line, and short: a server that is no database may answer with a whole page.
    const line = clip(message.replace(/\s+/g, " ").trim());
    if (line !== "" && !line.startsWith("Failed query:") && !parts.some((part) => part.includes(line))) {
      parts.push(line);
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.length > 0 ? parts.join(": ") : "unknown error";
}

/**
 * Opens the configured database, asks it one trivial query (a server that cannot answer fails here,
 * at once, instead of after the migrations' retries), and applies every pending migration. Any failure
 * is a {@link DatabaseStartupError}; the database is closed again when it was opened. `steps` are the
 * server's `openDatabase` and `runMigrations`.
 */
export async function openMigratedDatabase(
  config: DatabaseConfig,
  steps: {
    open: (config: DatabaseConfig) => Promise<OpenDatabase>;
    migrate: (db: OpenDatabase["db"]) => Promise<string[]>;
  },
): Promise<{ database: OpenDatabase; migrated: string[] }> {
  let database: OpenDatabase | undefined;
  try {
    database = await steps.open(config);
    await database.client.execute("SELECT 1");
    return { database, migrated: await steps.migrate(database.db) };
  } catch (err) {
    database?.close();
    throw new DatabaseStartupError(config.databaseUrl, err);
  }
}
