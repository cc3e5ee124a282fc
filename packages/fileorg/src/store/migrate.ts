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

/** Applies the package's pending migrations to `db`; idempotent. */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  const root = packageRoot();
  for (const set of MIGRATION_SETS) {
    await drizzleMigrate(db, {
      migrationsFolder: join(root, "drizzle", set.folder),
      migrationsTable: set.table,
    });
  }
}
