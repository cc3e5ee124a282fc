import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";

/** The table recording which review migrations ran. */
export const REVIEW_MIGRATIONS_TABLE = "__fileorg_review_migrations";

/** Finds `drizzle/<set>` by walking up from this module to the package root (works from src/ and dist/). */
export function findMigrationsFolder(set: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "drizzle", set)))
      return join(dir, "drizzle", set);
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`@vetted/fileorg: migrations folder drizzle/${set} not found`);
    dir = parent;
  }
}

/**
 * Applies the pending migrations of the review, preferences and inbox tables; idempotent. Runs after the core
 * set (it indexes the core's manifest rows): `migrate(db)` applies both in order.
 */
export async function migrateReview(db: LibSQLDatabase): Promise<void> {
  await migrate(db, {
    migrationsFolder: findMigrationsFolder("review"),
    migrationsTable: REVIEW_MIGRATIONS_TABLE,
  });
}
