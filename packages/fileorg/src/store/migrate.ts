import { join } from "node:path";
import { findDrizzleFolder, type MigrationSet, migrateWithRetry } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

export type { MigrationSet } from "@vetted/store";

/** The migration sets of the package, applied in order (folders under the package's `drizzle/`). */
export const MIGRATION_SETS: readonly MigrationSet[] = [
  { folder: "core", table: "__fileorg_migrations" },
  { folder: "review", table: "__fileorg_review_migrations" },
];

/**
 * Applies the package's pending migrations to `db`. Idempotent, and safe when several processes start on
 * one fresh database at once (`@vetted/store`'s migrate-with-retry: each set applies in one transaction,
 * a process that loses the race rolls back whole, tries again and finds nothing left to apply).
 */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  const root = findDrizzleFolder(import.meta.url, "@vetted/fileorg");
  await migrateWithRetry(
    db,
    MIGRATION_SETS.map((set) => ({ folder: join(root, set.folder), table: set.table })),
  );
}
