import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate as drizzleMigrate } from "drizzle-orm/libsql/migrator";

function migrationsFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "drizzle")))
      return join(dir, "drizzle");
    const parent = dirname(dir);
    if (parent === dir) throw new Error("@vetted/runs: cannot find the drizzle migrations folder");
    dir = parent;
  }
}

const ATTEMPTS = 5;

/**
 * Creates or upgrades the `runs_*` tables. Idempotent, and safe when several processes start on one fresh
 * database at once: the migrator reads what is applied before its transaction, so a process that lost the
 * race fails (its transaction rolls back whole) and tries again, then finds nothing left to apply.
 */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  const folder = migrationsFolder();
  for (let attempt = 1; ; attempt++) {
    try {
      await drizzleMigrate(db, { migrationsFolder: folder, migrationsTable: "__runs_migrations" });
      return;
    } catch (err) {
      if (attempt >= ATTEMPTS) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
