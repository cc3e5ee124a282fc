import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate as drizzleMigrate } from "drizzle-orm/libsql/migrator";

/** One set of migrations: a folder under `drizzle/` and its own bookkeeping table. */
export interface MigrationSet {
  folder: string;
  table: string;
}

/** The migration sets of the package, applied in order. */
export const MIGRATION_SETS: readonly MigrationSet[] = [
  { folder: "core", table: "__fileorg_migrations" },
  { folder: "review", table: "__fileorg_review_migrations" },
];

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "drizzle"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("@vetted/fileorg: cannot find the package's drizzle/ folder");
    dir = parent;
  }
}

const ATTEMPTS = 5;

/**
 * Applies the package's pending migrations to `db`. Idempotent, and safe when several processes start on
 * one fresh database at once: each set applies in one transaction, so a process that loses the race rolls
 * back whole, tries again, and then finds nothing left to apply.
 */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  const root = packageRoot();
  for (const set of MIGRATION_SETS) {
    const config = { migrationsFolder: join(root, "drizzle", set.folder), migrationsTable: set.table };
    for (let attempt = 1; ; attempt++) {
      try {
        await drizzleMigrate(db, config);
        break;
      } catch (err) {
        if (attempt >= ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }
}
