import { join } from "node:path";
import { loadSecretsKey } from "@vetted/runs";
import { CommandsFileError } from "@vetted/runs/automation";
import { createApp } from "./app.js";
import { composeEngines, type Engines } from "./compose.js";
import { type Config, ConfigError, loadConfig } from "./config.js";
import { openMigratedDatabase } from "./database-startup.js";
import { type OpenDatabase, openDatabase } from "./db.js";
import { createServerEmbeddings } from "./embeddings.js";
import { serverDataPaths } from "./fileorg.js";
import { createHttpServer } from "./http-server.js";
import { createLogger, type Logger } from "./logger.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { runMigrations } from "./migrate.js";
import { listenOrExit, warnUnusableRoots } from "./startup.js";
import { SERVER_VERSION } from "./version.js";

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

/** The engines over the migrated database, read from the configuration (one secrets key, loaded once). */
function buildEngines(config: Config, database: OpenDatabase, logger: Logger, metrics: Metrics): Engines {
  const outbound = { allow: config.httpAllow, deny: config.httpDeny };
  try {
    return composeEngines({
      database,
      logger,
      metrics,
      dataDir: config.dataDir,
      allowedRoots: config.allowedRoots,
      protectedDomains: config.protectedProviderDomains,
      secretsKey: loadSecretsKey({ dataDir: config.dataDir, env: { VETTED_SECRETS_KEY: config.secretsKey } }),
      outbound,
      maxArtifactBytes: config.maxBodyBytes,
      browser: {
        executablePath: config.chromiumPath,
        unavailableReason: config.chromiumMissingReason,
        maxContexts: config.browserMaxContexts,
        idleMs: config.browserIdleMs,
      },
      runs: { leaseMs: config.runsLeaseMs, pollMs: config.runsPollMs, concurrency: config.runsConcurrency },
      webhooks: {
        pollMs: config.webhooks.pollMs,
        timeoutMs: config.webhooks.timeoutMs,
        retry: { baseMs: config.webhooks.retryBaseMs },
      },
      fileorg: {
        fileorg: {
          allowedRoots: config.allowedRoots,
          dataDir: config.dataDir,
          // Never planned or moved, even where an allowed root holds them: the data directory, database, keys.
          protectedPaths: serverDataPaths(config),
          env: { VETTED_JOURNAL_KEY: config.journalKey },
          leaseMs: config.fileorgLeaseMs,
        },
      },
      lanes: { planner: config.cuPlanner },
      automation: { settings: config.automation, env: process.env },
      embeddings: createServerEmbeddings(config),
      proof: config,
    });
  } catch (err) {
    // A bad commands file stops the start here, naming the offending entry.
    if (err instanceof CommandsFileError) {
      process.stderr.write(`vetted: VETTED_AUTOMATION_COMMANDS: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** On SIGINT/SIGTERM: stop taking requests, stop the workers, the lanes and the browser, close the database. */
function stopOnSignals(
  server: ReturnType<typeof createHttpServer>,
  engines: Engines,
  database: OpenDatabase,
  logger: Logger,
): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close(() => {
      void engines.stop().finally(() => {
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
  const engines = buildEngines(config, database, logger, metrics);
  const { runs, webhooks, automation, lanes, browser } = engines;
  if (!browser.available)
    logger.warn("no browser: browser routes and steps answer 503", { ...browser.status() });
  // Recovery of jobs a crash left running happens here, before anything is served.
  await engines.fileorg.start();
  await engines.inbox.start();
  const interrupted = await lanes.sessions.recoverInterrupted();
  if (interrupted > 0)
    logger.warn("sessions left live by the previous process are marked failed", { interrupted });

  // The engines' extra members (lanes, stop) are not the app's business; createApp reads what it names.
  const app = createApp({
    ...engines,
    config,
    database,
    databaseIsFile: config.databaseIsFile,
    version: SERVER_VERSION,
    logger,
    metrics,
    vonage: config.vonage,
    health: config.health,
    webDist: config.webDist,
    previewsDir: join(config.dataDir, "previews"),
    previewCacheBytes: config.previewCacheBytes,
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

  stopOnSignals(server, engines, database, logger);
}

main().catch((err: unknown) => {
  process.stderr.write(`vetted: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
