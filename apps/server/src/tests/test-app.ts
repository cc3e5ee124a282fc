import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BrowserHostOptions,
  createBrowserHost,
  createReconstructionEngine,
  createRunsEngine,
  findChromium,
  type RunsEngineOptions,
  type WebhooksEngineOptions,
} from "@vetted/runs";
import { type AppDeps, createApp } from "../app.js";
import { createServerAutomation } from "../automation/create.js";
import { type BrowserLanesOptions, createBrowserLanes, lateSessionStates } from "../browser-lanes.js";
import { openDatabase } from "../db.js";
import { createFileorgDeps } from "../fileorg.js";
import { createLogger } from "../logger.js";
import { createMetrics } from "../metrics.js";
import { runMigrations } from "../migrate.js";
import { createServerWebhooks } from "../webhooks.js";

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
  extraDeps: Pick<Partial<AppDeps>, "vonage" | "embeddings" | "health" | "operatorLanes"> = {},
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
  // Launched on first use only: tests that never touch a browser never start one.
  const browser = createBrowserHost({
    executablePath: findChromium(process.env),
    maxContexts: 4,
    idleMs: 60_000,
    ...browserOptions,
  });
  const sessionStates = lateSessionStates();
  const runs = createRunsEngine({
    sessionStates,
    db: database.db,
    browser,
    dataDir: dir,
    secretsKey: Buffer.alloc(32, 7),
    leaseMs: 1000,
    pollMs: 50,
    observer: metrics.runsObserver,
    ...runsOptions,
  });
  metrics.attachRuns(runs);
  runs.start();
  const fileorgDeps = createFileorgDeps(database.db, {
    logger,
    inboxRefreshMs: 200,
    fileorg: { allowedRoots: [dir], journalKey: Buffer.alloc(32, 9) },
  });
  await fileorgDeps.fileorg.start();
  const webhooks = createServerWebhooks(database.db, {
    secretsKey: Buffer.alloc(32, 7),
    pollMs: 50,
    retry: { baseMs: 200 },
    ...webhookOptions,
  });
  webhooks.start();
  const lanes = createBrowserLanes({
    db: database.db,
    browser,
    dataDir: dir,
    protectedDomains: runsOptions.protectedDomains ?? [],
    secretsKey: Buffer.alloc(32, 7),
    createFlow: (input) => runs.createFlow(input),
    ...lanesOptions,
  });
  sessionStates.bind(lanes.sessions);
  const automation = createServerAutomation({
    db: database.db,
    secretsKey: Buffer.alloc(32, 7),
    runs,
    fileorg: fileorgDeps.fileorg,
    allowedRoots: [dir],
    settings: {
      commandsFile: undefined,
      maxParallel: 2,
      queueMax: 100,
      leaseMs: 5000,
      killGraceMs: 1000,
      retryBaseMs: 100,
    },
    env: {},
    logger,
    onTransition: (tx, { task }) => webhooks.taskFinishedHook(tx, task).then(() => undefined),
  });
  await automation.start();
  const deps: AppDeps = {
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
    logger,
    runs,
    metrics,
    browser,
    sessions: lanes.sessions,
    computerUse: lanes.computerUse,
    reconstruction: createReconstructionEngine({
      db: database.db,
      dataDir: dir,
      allowedRoots: [dir],
      maxArtifactBytes: config.maxBodyBytes ?? 1024 * 1024,
      protectedDomains: runsOptions.protectedDomains ?? [],
      runs,
    }),
    ...fileorgDeps,
    automation,
    // Tests poll quickly; the rate-limit tests set their own limits.
    health: { rateLimitPerMinute: 1_000_000, rateLimitAnonPerMinute: 1_000_000 },
    webhooks,
    ...extraDeps,
  };
  return {
    app: createApp(deps),
    deps,
    dir,
    async close() {
      await Promise.all([
        runs.stop(),
        webhooks.stop(),
        fileorgDeps.inbox.stop(),
        fileorgDeps.fileorg.stop(),
        automation.stop(),
      ]);
      await lanes.close();
      await browser.close();
      database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headers a loopback client sends. */
export const LOCAL = { Host: "127.0.0.1:8787" } as const;
