import { findDrizzleFolder, migrateWithRetry } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/**
 * Creates or upgrades the `runs_*` tables. Idempotent, and safe when several processes start on one fresh
 * database at once (`migrateWithRetry` of `@vetted/store`).
 */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  const folder = findDrizzleFolder(import.meta.url, "@vetted/runs");
  await migrateWithRetry(db, [{ folder, table: "__runs_migrations" }]);
}
