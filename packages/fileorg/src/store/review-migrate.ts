import { join } from "node:path";
import { findDrizzleFolder, migrateWithRetry } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/** The table recording which review migrations ran. */
export const REVIEW_MIGRATIONS_TABLE = "__fileorg_review_migrations";

/**
 * Applies the pending migrations of the review, preferences and inbox tables; idempotent. Runs after the core
 * set (it indexes the core's manifest rows): `migrate(db)` applies both in order.
 */
export async function migrateReview(db: LibSQLDatabase): Promise<void> {
  const folder = join(findDrizzleFolder(import.meta.url, "@vetted/fileorg"), "review");
  await migrateWithRetry(db, [{ folder, table: REVIEW_MIGRATIONS_TABLE }]);
}
