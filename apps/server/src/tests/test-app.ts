import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserHostOptions, findChromium, type RunsEngineOptions } from "@vetted/runs";
import type { WebhooksEngineOptions } from "@vetted/runs/webhooks";
import { type AppDeps, createApp } from "../app.js";
import type { BrowserLanesOptions } from "../browser-lanes.js";
import { composeEngines } from "../compose.js";
import { openDatabase } from "../db.js";
import { createLogger } from "../logger.js";
import { createMetrics } from "../metrics.js";
import { runMigrations } from "../migrate.js";

/** An app over a fresh, migrated temporary database file, for `app.request()` tests. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  dir: string;
  /** Stops the background engines (job runner, inbox watchers), closes the database and removes the files. */
  close(): Promise<void>;
}

/** Builds the real app over a temporary SQLite file; `config` overrides the loopback defaults. */
export async function createTestApp(
  config: Partial<AppDeps["config"]> = {},
  runsOptions: Partial<RunsEngineOptions> = {},
  browserOptions: Partial<BrowserHostOptions> = {},
  lanesOptions: Partial<Pick<BrowserLanesOptions, "planner" | "raceHooks">> = {},
  extraDeps: Pick<
    Partial<AppDeps>,
    "vonage" | "embeddings" | "health" | "operatorLanes" | "previewCacheBytes"
  > = {},
  webhookOptions: Partial<Omit<WebhooksEngineOptions, "db">> = {},
): Promise<TestApp> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-app-")));
  const database = await openDatabase({
    databaseUrl: `file:${join(dir, "test.db")}`,
    databaseAuthToken: undefined,
    dbBusyTimeoutMs: 5000,
  });
  await runMigrations(database.db);
  const logger = createLogger("silent");
  const metrics = createMetrics(logger);
  const protectedDomains = runsOptions.protectedDomains ?? [];
  const engines = composeEngines({
    database,
    logger,
    metrics,
    dataDir: dir,
    allowedRoots: [dir],
    protectedDomains,
    secretsKey: Buffer.alloc(32, 7),
    maxArtifactBytes: config.maxBodyBytes ?? 1024 * 1024,
    // Launched on first use only: tests that never touch a browser never start one.
    browser: { executablePath: findChromium(process.env), maxContexts: 4, idleMs: 60_000, ...browserOptions },
    runs: { leaseMs: 1000, pollMs: 50, ...runsOptions },
    webhooks: { pollMs: 50, retry: { baseMs: 200 }, ...webhookOptions },
    fileorg: {
      inboxRefreshMs: 200,
      // Trashed files go to a trash inside the test folder, never to the real home trash.
      fileorg: { allowedRoots: [dir], journalKey: Buffer.alloc(32, 9), trashDir: join(dir, ".trash") },
    },
    lanes: lanesOptions,
    automation: {
      settings: {
        commandsFile: undefined,
        maxParallel: 2,
        queueMax: 100,
        leaseMs: 5000,
        killGraceMs: 1000,
        retryBaseMs: 100,
      },
      env: {},
    },
    ...(extraDeps.embeddings === undefined ? {} : { embeddings: extraDeps.embeddings }),
  });
  engines.runs.start();
  await engines.fileorg.start();
  engines.webhooks.start();
  await engines.automation.start();
  const deps: AppDeps = {
    ...engines,
    config: {
      host: "127.0.0.1",
      apiToken: undefined,
      allowedHosts: [],
      corsOrigins: [],
      maxBodyBytes: 1024 * 1024,
      frontendUrl: "http://127.0.0.1:5173",
      ...config,
    },
    database,
    databaseIsFile: true,
    version: "0.0.0-test",
    previewsDir: join(dir, "previews"),
    logger,
    metrics,
    // Tests poll quickly; the rate-limit tests set their own limits.
    health: { rateLimitPerMinute: 1_000_000, rateLimitAnonPerMinute: 1_000_000 },
    ...extraDeps,
  };
  return {
    app: createApp(deps),
    deps,
    dir,
    async close() {
      await engines.stop();
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headers a loopback client sends. */
export const LOCAL = { Host: "127.0.0.1:8787" } as const;
