import {
  type BrowserHost,
  type BrowserHostOptions,
  createBrowserHost,
  createRunsEngine,
  type RunsEngineOptions,
} from "@vetted/runs";
import type { Embeddings } from "@vetted/runs/embeddings";
import type { ProofEngine } from "@vetted/runs/proof";
import { createReconstructionEngine } from "@vetted/runs/reconstruction";
import type { WebhooksEngineOptions } from "@vetted/runs/webhooks";
import { createServerAutomation, type ServerAutomationOptions } from "./automation/create.js";
import {
  type BrowserLanes,
  type BrowserLanesOptions,
  createBrowserLanes,
  lateSessionStates,
} from "./browser-lanes.js";
import type { Config } from "./config.js";
import type { OpenDatabase } from "./db.js";
import type { AppDeps } from "./deps.js";
import { createFileorgDeps, type FileorgDepsOptions } from "./fileorg.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { createServerProof } from "./proof.js";
import { createServerWebhooks } from "./webhooks.js";

/**
 * What the server's engines are built from. `main.ts` reads every part from the configuration; the test app
 * sets loopback defaults. Both call {@link composeEngines} once, so the wiring is written once.
 */
export interface EngineParts {
  database: OpenDatabase;
  logger: Logger;
  metrics: Metrics;
  dataDir: string;
  allowedRoots: readonly string[];
  protectedDomains: readonly string[];
  /** The installation's secrets key, loaded once: the run vault, webhook secrets, typed secrets, tasks. */
  secretsKey: Buffer;
  outbound?: RunsEngineOptions["outbound"];
  /** The largest artifact reconstruction reads (the request body limit). */
  maxArtifactBytes: number;
  browser: BrowserHostOptions;
  /** Run engine settings beyond the shared parts above (lease, poll, concurrency…). */
  runs?: Partial<
    Omit<
      RunsEngineOptions,
      | "db"
      | "browser"
      | "dataDir"
      | "secretsKey"
      | "sessionStates"
      | "protectedDomains"
      | "observer"
      | "outbound"
    >
  >;
  webhooks?: Partial<Omit<WebhooksEngineOptions, "db" | "feeds" | "secretsKey">>;
  fileorg: Omit<FileorgDepsOptions, "logger">;
  lanes?: Pick<BrowserLanesOptions, "planner" | "raceHooks">;
  automation: Pick<ServerAutomationOptions, "settings" | "env">;
  /** The embeddings models; their embedder indexes failures for similarity search. */
  embeddings?: Embeddings;
  /** Proof and review, with the review model of `VETTED_REVIEW_MODEL_*`; absent = the app's default. */
  proof?: Pick<Config, "httpAllow" | "httpDeny" | "reviewModel">;
}

/** The engines of one server, built and not yet started, and how to stop them in order. */
export interface Engines
  extends Pick<
    AppDeps,
    | "runs"
    | "browser"
    | "sessions"
    | "computerUse"
    | "reconstruction"
    | "fileorg"
    | "preferences"
    | "inbox"
    | "review"
    | "automation"
    | "webhooks"
  > {
  lanes: BrowserLanes;
  proof?: ProofEngine;
  embeddings?: Embeddings;
  /** Stops the run worker, then the browser lanes and host; the other workers alongside. Never rejects. */
  stop(): Promise<void>;
}

function buildRuns(
  parts: EngineParts,
  browser: BrowserHost,
  sessionStates: ReturnType<typeof lateSessionStates>,
) {
  const runs = createRunsEngine({
    ...(parts.embeddings === undefined ? {} : { embedder: parts.embeddings.embedder() }),
    ...(parts.outbound === undefined ? {} : { outbound: parts.outbound }),
    ...parts.runs,
    sessionStates,
    browser,
    dataDir: parts.dataDir,
    db: parts.database.db,
    secretsKey: parts.secretsKey,
    protectedDomains: parts.protectedDomains,
    observer: parts.metrics.runsObserver,
  });
  parts.metrics.attachRuns(runs);
  return runs;
}

/**
 * Builds every engine of the server once over one database: the browser host, the run engine and its lanes
 * (sessions, computer use, reconstruction, proof), webhooks, the file organizer and automation. Nothing is
 * started: the caller starts the workers when it is ready to serve.
 * @throws COMMANDS_FILE_INVALID when the automation commands file names a bad entry
 */
export function composeEngines(parts: EngineParts): Engines {
  const { database, logger } = parts;
  const onError = (message: string, err: unknown) => logger.error(message, { err });
  const browser = createBrowserHost({ logger, ...parts.browser });
  const sessionStates = lateSessionStates();
  const runs = buildRuns(parts, browser, sessionStates);
  const webhooks = createServerWebhooks(database.db, {
    ...(parts.outbound === undefined ? {} : { outbound: parts.outbound }),
    protectedDomains: parts.protectedDomains,
    onError,
    ...parts.webhooks,
    secretsKey: parts.secretsKey,
  });
  const fileorgDeps = createFileorgDeps(database.db, { ...parts.fileorg, logger });
  const lanes = createBrowserLanes({
    db: database.db,
    browser,
    dataDir: parts.dataDir,
    protectedDomains: parts.protectedDomains,
    secretsKey: parts.secretsKey,
    createFlow: (input) => runs.createFlow(input),
    onError,
    ...parts.lanes,
  });
  sessionStates.bind(lanes.sessions);
  const automation = createServerAutomation({
    ...parts.automation,
    db: database.db,
    secretsKey: parts.secretsKey,
    runs,
    fileorg: fileorgDeps.fileorg,
    allowedRoots: parts.allowedRoots,
    logger,
    // A task's end queues its `task.finished` webhook event in the transaction of the change.
    onTransition: (tx, { task }) => webhooks.taskFinishedHook(tx, task).then(() => undefined),
  });
  const reconstruction = createReconstructionEngine({
    db: database.db,
    dataDir: parts.dataDir,
    allowedRoots: parts.allowedRoots,
    maxArtifactBytes: parts.maxArtifactBytes,
    protectedDomains: parts.protectedDomains,
    runs,
  });
  const proof =
    parts.proof === undefined
      ? undefined
      : createServerProof(
          { ...parts.proof, protectedProviderDomains: [...parts.protectedDomains] },
          database,
          runs,
          browser,
        );
  const stop = async (): Promise<void> => {
    await Promise.all([
      runs
        .stop()
        .catch((err: unknown) => logger.error("the run worker did not stop cleanly", { err }))
        .then(() => lanes.close())
        .then(() => browser.close()),
      fileorgDeps.inbox.stop(),
      fileorgDeps.fileorg.stop(),
      automation
        .stop()
        .catch((err: unknown) => logger.error("the automation worker did not stop cleanly", { err })),
      webhooks.stop(),
    ]).catch((err: unknown) => logger.error("a worker did not stop cleanly", { err }));
  };
  return {
    runs,
    browser,
    sessions: lanes.sessions,
    computerUse: lanes.computerUse,
    reconstruction,
    ...fileorgDeps,
    automation,
    webhooks,
    lanes,
    ...(proof === undefined ? {} : { proof }),
    ...(parts.embeddings === undefined ? {} : { embeddings: parts.embeddings }),
    stop,
  };
}
