import {
  type BrowserHost,
  createBrowserHost,
  createReconstructionEngine,
  createRunsEngine,
  loadSecretsKey,
  type SessionStates,
} from "@vetted/runs";
import { createApp } from "./app.js";
import { createAutomationFromConfig } from "./automation/create.js";
import { createBrowserLanes, lateSessionStates } from "./browser-lanes.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { openMigratedDatabase } from "./database-startup.js";
import { type OpenDatabase, openDatabase } from "./db.js";
import { createServerEmbeddings } from "./embeddings.js";
import { createFileorgDeps, serverDataPaths } from "./fileorg.js";
import { createHttpServer } from "./http-server.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { runMigrations } from "./migrate.js";
import { createServerProof } from "./proof.js";
import { listenOrExit, warnUnusableRoots } from "./startup.js";
import { SERVER_VERSION } from "./version.js";
import { createServerWebhooks } from "./webhooks.js";

/** The configuration from the environment; an invalid variable ends the process with exit code 2. */
function readConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`vetted: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** The engines over the migrated database; fileorg's recovery of jobs a crash left running runs here. */
async function startEngines(
  config: Config,
  database: OpenDatabase,
  logger: Logger,
  metrics: Metrics,
  browser: BrowserHost,
  sessionStates?: SessionStates,
) {
  const embeddings = createServerEmbeddings(config);
  // Loaded once: the run vault, webhook signing secrets and computer use's typed secrets share it.
  const secretsKey = loadSecretsKey({
    dataDir: config.dataDir,
    env: { VETTED_SECRETS_KEY: config.secretsKey },
  });
  const runs = createRunsEngine({
    embedder: embeddings.embedder(),
    ...(sessionStates === undefined ? {} : { sessionStates }),
    browser,
    dataDir: config.dataDir,
    db: database.db,
    secretsKey,
    protectedDomains: config.protectedProviderDomains,
    leaseMs: config.runsLeaseMs,
    pollMs: config.runsPollMs,
    concurrency: config.runsConcurrency,
    observer: metrics.runsObserver,
    outbound: { allow: config.httpAllow, deny: config.httpDeny },
  });
  metrics.attachRuns(runs);
  const webhooks = createServerWebhooks(database.db, {
    secretsKey,
    outbound: { allow: config.httpAllow, deny: config.httpDeny },
    protectedDomains: config.protectedProviderDomains,
    pollMs: config.webhooks.pollMs,
    timeoutMs: config.webhooks.timeoutMs,
    retry: { baseMs: config.webhooks.retryBaseMs },
    onError: (message, err) => logger.error(message, { err }),
  });
  const fileorgDeps = createFileorgDeps(database.db, {
    logger,
    fileorg: {
      allowedRoots: config.allowedRoots,
      dataDir: config.dataDir,
      // Never planned or moved, even where an allowed root holds them: the data directory, database, keys.
      protectedPaths: serverDataPaths(config),
      env: { VETTED_JOURNAL_KEY: config.journalKey },
      leaseMs: config.fileorgLeaseMs,
    },
  });
  // Recovery of jobs a crash left running happens here, before anything is served.
  await fileorgDeps.fileorg.start();
  await fileorgDeps.inbox.start();
  return { runs, fileorgDeps, embeddings, webhooks, secretsKey };
}

/** The browser, the engines over it, and the browser lanes (sessions, computer use) bound to the run engine. */
async function startWithBrowser(config: Config, database: OpenDatabase, logger: Logger, metrics: Metrics) {
  const browser = createBrowserHost({
    executablePath: config.chromiumPath,
    unavailableReason: config.chromiumMissingReason,
    maxContexts: config.browserMaxContexts,
    idleMs: config.browserIdleMs,
    logger,
  });
  if (!browser.available)
    logger.warn("no browser: browser routes and steps answer 503", { ...browser.status() });
  const sessionStates = lateSessionStates();
  const { runs, fileorgDeps, embeddings, webhooks, secretsKey } = await startEngines(
    config,
    database,
    logger,
    metrics,
    browser,
    sessionStates,
  );
  const lanes = createBrowserLanes({
    db: database.db,
    browser,
    dataDir: config.dataDir,
    protectedDomains: config.protectedProviderDomains,
    secretsKey,
    createFlow: (input) => runs.createFlow(input),
    planner: config.cuPlanner,
    onError: (message, err) => logger.error(message, { err }),
  });
  sessionStates.bind(lanes.sessions);
  const interrupted = await lanes.sessions.recoverInterrupted();
  if (interrupted > 0)
    logger.warn("sessions left live by the previous process are marked failed", { interrupted });

  return { browser, runs, fileorgDeps, embeddings, lanes, webhooks };
}

/** What a clean shutdown stops, in order. */
interface Stoppable {
  server: ReturnType<typeof createHttpServer>;
  runs: Awaited<ReturnType<typeof startWithBrowser>>["runs"];
  lanes: Awaited<ReturnType<typeof startWithBrowser>>["lanes"];
  browser: Awaited<ReturnType<typeof startWithBrowser>>["browser"];
  inbox: { stop(): Promise<void> };
  fileorg: { stop(): Promise<void> };
  automation: { stop(): Promise<void> };
  webhooks: { stop(): Promise<void> };
  database: OpenDatabase;
  logger: Logger;
}

/** On SIGINT/SIGTERM: stop taking requests, stop the workers, the lanes and the browser, close the database. */
function stopOnSignals({
  server,
  runs,
  lanes,
  browser,
  inbox,
  fileorg,
  automation,
  webhooks,
  database,
  logger,
}: Stoppable): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(() => {
      void Promise.all([
        runs
          .stop()
          .catch((err: unknown) => logger.error("the run worker did not stop cleanly", { err }))
          .then(() => lanes.close())
          .then(() => browser.close()),
        inbox.stop(),
        fileorg.stop(),
        automation
          .stop()
          .catch((err: unknown) => logger.error("the automation worker did not stop cleanly", { err })),
        webhooks.stop(),
      ]).finally(() => {
        database.close();
        process.exit(0);
      });
    });
    // Idle keep-alive sockets go now; in-flight requests (and open event streams) get a grace period.
    if ("closeIdleConnections" in server) server.closeIdleConnections();
    setTimeout(() => {
      if ("closeAllConnections" in server) server.closeAllConnections();
    }, 3_000).unref();
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

/** Reads env, opens and migrates the database, serves, and shuts down cleanly on SIGINT/SIGTERM. */
async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  const steps = { open: openDatabase, migrate: runMigrations };
  const { database, migrated } = await openMigratedDatabase(config, steps);
  logger.info("database ready", {
    database: config.databaseIsFile ? config.databaseUrl : new URL(config.databaseUrl).host,
    migrated,
  });

  const { rateLimitPerMinute: perMinute, rateLimitSyncMs: syncMs } = config.health;
  logger.info(
    syncMs > 0
      ? `rate limits: ${perMinute} a minute per identity and route family, shared by every server on this database (exchanged every ${syncMs} ms)`
      : `rate limits: ${perMinute} a minute per identity and route family in this process only (VETTED_RATE_LIMIT_SYNC_MS=0): N servers on this database allow N × ${perMinute} a minute in total`,
  );
  warnUnusableRoots(config.allowedRoots, logger);
  const metrics = createMetrics(logger);
  const { browser, runs, fileorgDeps, embeddings, lanes, webhooks } = await startWithBrowser(
    config,
    database,
    logger,
    metrics,
  );
  const { fileorg, inbox } = fileorgDeps;
  // A bad commands file stops the start here; tasks a crash left running are recovered once listening.
  // A task's end queues its `task.finished` webhook event in the transaction of the change.
  const automation = createAutomationFromConfig(config, database.db, runs, fileorg, logger, (tx, { task }) =>
    webhooks.taskFinishedHook(tx, task).then(() => undefined),
  );

  const app = createApp({
    config,
    database,
    databaseIsFile: config.databaseIsFile,
    version: SERVER_VERSION,
    logger,
    runs,
    metrics,
    browser,
    sessions: lanes.sessions,
    computerUse: lanes.computerUse,
    reconstruction: createReconstructionEngine({
      db: database.db,
      dataDir: config.dataDir,
      allowedRoots: config.allowedRoots,
      maxArtifactBytes: config.maxBodyBytes,
      protectedDomains: config.protectedProviderDomains,
      runs,
    }),
    ...fileorgDeps,
    vonage: config.vonage,
    embeddings,
    automation,
    health: config.health,
    proof: createServerProof(config, database, runs, browser),
    webhooks,
    webDist: config.webDist,
    comparisonFile: config.comparisonFile,
  });
  const server = createHttpServer({
    fetch: app.fetch,
    hostname: config.host,
    headersTimeoutMs: config.headersTimeoutMs,
    requestTimeoutMs: config.requestTimeoutMs,
    logger,
  });
  listenOrExit(server, config.port, config.host, () => {
    const info = server.address();
    if (info === null || typeof info === "string") return;
    // Known before the worker starts: an `http` step may not call this server's own API.
    runs.setServerAddress(info.address, info.port);
    runs.start();
    webhooks.setServerAddress(info.address, info.port);
    webhooks.start();
    automation.start().catch((err: unknown) => logger.error("the automation worker did not start", { err }));
    const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
    // The first stdout line is the address; tests and scripts read it.
    process.stdout.write(`Vetted server listening on http://${host}:${info.port}\n`);
  });

  stopOnSignals({ server, runs, lanes, browser, inbox, fileorg, automation, webhooks, database, logger });
}

main().catch((err: unknown) => {
  process.stderr.write(`vetted: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
