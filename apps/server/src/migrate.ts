import { migrate as migrateFileorg } from "@vetted/fileorg";
import { migrate as migrateRuns } from "@vetted/runs";
import type { Database } from "./db.js";

/** One package's migration entry point, as each engine package exports it. */
type Migrator = (db: Database) => Promise<void>;

/** Every package's `migrate(db)`, applied in this order at start-up. Each one is idempotent. */
const MIGRATORS: ReadonlyArray<readonly [name: string, migrate: Migrator]> = [
  ["runs", migrateRuns],
  ["fileorg", migrateFileorg],
];

/** Applies every package's pending migrations; returns the names of the packages migrated. */
export async function runMigrations(db: Database): Promise<string[]> {
  for (const [, migrate] of MIGRATORS) await migrate(db);
  return MIGRATORS.map(([name]) => name);
}
