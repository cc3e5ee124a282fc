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

/** Creates or upgrades the `runs_*` tables. Idempotent. */
export async function migrate(db: LibSQLDatabase): Promise<void> {
  await drizzleMigrate(db, { migrationsFolder: migrationsFolder(), migrationsTable: "__runs_migrations" });
}
