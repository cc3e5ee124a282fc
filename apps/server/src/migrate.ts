import { migrate as migrateFileorg } from "@vetted/fileorg";
import { migrate as migrateRuns } from "@vetted/runs";
import { sql } from "drizzle-orm";
import type { Database } from "./db.js";
import { RATE_WINDOWS_DDL } from "./rate-sync.js";

/** One package's migration entry point, as each engine package exports it. */
type Migrator = (db: Database) => Promise<void>;

/** Every package's `migrate(db)`, applied in this order at start-up. Each one is idempotent. */
const MIGRATORS: ReadonlyArray<readonly [name: string, migrate: Migrator]> = [
  ["runs", migrateRuns],
  ["fileorg", migrateFileorg],
  ["server", migrateServer],
];

/** The server's own table: the rate-limit windows every server process on the database shares. */
async function migrateServer(db: Database): Promise<void> {
  await db.run(sql.raw(RATE_WINDOWS_DDL));
}

/** Applies every package's pending migrations; returns the names of the packages migrated. */
export async function runMigrations(db: Database): Promise<string[]> {
  for (const [, migrate] of MIGRATORS) await migrate(db);
  return MIGRATORS.map(([name]) => name);
}
