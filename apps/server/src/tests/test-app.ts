import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileorgEngine } from "@vetted/fileorg";
import { type AppDeps, createApp } from "../app.js";
import { openDatabase } from "../db.js";
import { createLogger } from "../logger.js";
import { runMigrations } from "../migrate.js";

/** An app over a fresh, migrated temporary database file, for `app.request()` tests. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  dir: string;
  close(): Promise<void>;
}

/** Builds the real app over a temporary SQLite file; `config` overrides the loopback defaults. */
export async function createTestApp(config: Partial<AppDeps["config"]> = {}): Promise<TestApp> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-app-")));
  const database = await openDatabase({
    databaseUrl: `file:${join(dir, "test.db")}`,
    databaseAuthToken: undefined,
    databaseIsFile: true,
    dbBusyTimeoutMs: 5000,
  });
  await runMigrations(database.db);
  const fileorg = createFileorgEngine({
    db: database.db,
    allowedRoots: [dir],
    journalKey: Buffer.alloc(32, 9),
  });
  await fileorg.start();
  const deps: AppDeps = {
    config: {
      host: "127.0.0.1",
      apiToken: undefined,
      allowedHosts: [],
      corsOrigins: [],
      maxBodyBytes: 1024 * 1024,
      ...config,
    },
    database,
    databaseIsFile: true,
    version: "0.0.0-test",
    logger: createLogger("silent"),
    fileorg,
  };
  return {
    app: createApp(deps),
    deps,
    dir,
    async close() {
      await fileorg.stop();
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headers a loopback client sends. */
export const LOCAL = { Host: "127.0.0.1:8787" } as const;
