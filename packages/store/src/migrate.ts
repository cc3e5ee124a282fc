import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LibSQLDatabase } from "drizzle-orm/libsql";

/**
 * The `drizzle/` folder of the package holding `moduleUrl` (pass `import.meta.url`): walks up from the module
 * to the first folder with both a `package.json` and a `drizzle/` folder, from `src/` and `dist/` alike.
 */
export function findDrizzleFolder(moduleUrl: string, packageName: string): string {
  let dir = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "drizzle")))
      return join(dir, "drizzle");
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${packageName}: cannot find the package's drizzle/ folder`);
    dir = parent;
  }
}

/** One set of migrations: its folder and its own bookkeeping table. */
export interface MigrationSet {
  folder: string;
  table: string;
}

const ATTEMPTS = 5;

/**
 * Applies each set's pending migrations in order. Safe when several processes start on one fresh database
 * at once: each set applies in one transaction, so a process that loses the race rolls back whole, waits,
 * tries again, and then finds nothing left to apply.
 */
export async function migrateWithRetry(db: LibSQLDatabase, sets: readonly MigrationSet[]): Promise<void> {
  // Loaded here, not at import: the package's main entry needs no drizzle-orm for its other exports.
  const { migrate: drizzleMigrate } = await import("drizzle-orm/libsql/migrator");
  for (const set of sets) {
    const config = { migrationsFolder: set.folder, migrationsTable: set.table };
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
