import type { FileorgEngine, InboxEngine, Job, PreferencesEngine, ReviewEngine } from "@vetted/fileorg";
import type { BrowserHost, RunsEngine } from "@vetted/runs";
import type { AutomationEngine } from "@vetted/runs/automation";
import type { ComputerUseEngine } from "@vetted/runs/computer-use";
import type { Embeddings } from "@vetted/runs/embeddings";
import type { ProofEngine } from "@vetted/runs/proof";
import type { ReconstructionEngine } from "@vetted/runs/reconstruction";
import type { SessionsEngine } from "@vetted/runs/sessions";
import type { Telemetry } from "@vetted/runs/telemetry";
import type { WebhooksEngine } from "@vetted/runs/webhooks";
import type { Config, VonageSettings } from "./config.js";
import type { OpenDatabase } from "./db.js";
import type { HealthSettings, OperatorLanes } from "./health-report.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

/*
 * The app's dependencies and per-request variables, apart from `app.ts`: routes import these types from
 * here, so no route imports the module that imports every route.
 */

/** What the app is built from; `main.ts` assembles it, tests build their own. */
export interface AppDeps {
  config: Pick<Config, "host" | "apiToken" | "allowedHosts" | "corsOrigins" | "maxBodyBytes" | "frontendUrl">;
  database: OpenDatabase;
  databaseIsFile: boolean;
  version: string;
  logger: Logger;
  /** The run engine (flows, templates, runs). */
  runs: RunsEngine;
  /** The Prometheus registry and its hooks. */
  metrics: Metrics;
  /** The browser host (one Chromium for every session and run); unavailable when none was found. */
  browser: BrowserHost;
  /** Recording sessions in the browser (`/api/sessions`; see `createBrowserLanes`). */
  sessions: SessionsEngine;
  /** Computer use (`/api/computer-use/sessions`; see `createBrowserLanes`). */
  computerUse: ComputerUseEngine;
  /** Profiles and reconstruction (`/api/profiles/resolve`, `/api/reconstruction/*`, `/api/templates/from-artifacts`). */
  reconstruction: ReconstructionEngine;
  /** The file organization engine (its runner is started by `main.ts`). */
  fileorg: FileorgEngine;
  /** File-organizer preferences: naming templates, review rules, views, watch sources, runtime, packs. */
  preferences: PreferencesEngine;
  /** The inbox: watches enabled watch sources and reports new stable files (start/stop in main.ts). */
  inbox: InboxEngine<Job>;
  /** Review of manifests: queue, batch triage, rules, learning. */
  review: ReviewEngine;
  /** Inbound Vonage SMS settings; absent = the integration answers 503 INTEGRATION_NOT_CONFIGURED. */
  vonage?: VonageSettings;
  /** The embeddings models (default: the local one alone, loaded on first use). */
  embeddings?: Embeddings;
  /** The automation command lane (`/api/automation`; see `createServerAutomation`). */
  automation: AutomationEngine;
  /** Proof and review (`/api/proof`); default: one over the run engine with the built-in provider list. */
  proof?: ProofEngine;
  /** Signed webhooks (`/api/webhooks`); its dispatcher is started by `main.ts`. */
  webhooks: WebhooksEngine;
  /** Where rendered thumbnails are cached (`<data dir>/previews`); created on first use. */
  previewsDir: string;
  /** The thumbnail cache's byte budget (`VETTED_PREVIEW_CACHE_BYTES`; default the engine's, 256 MiB). */
  previewCacheBytes?: number | undefined;
  /** The built web console (`VETTED_WEB_DIST`); absent = `/` answers a page saying how to build it. */
  webDist?: string | undefined;
  /** The comparison document `GET /api/comparison/document` reads (`VETTED_COMPARISON_FILE`). */
  comparisonFile?: string | undefined;
  /** Idle milliseconds before an event stream sends a heartbeat comment (default 15 s; tests shorten it). */
  sseHeartbeatMs?: number;
  /** Rate limits and alert thresholds (default: `HEALTH_DEFAULTS` in health-report.ts). */
  health?: HealthSettings;
  /** Browser telemetry and run health (default: over `database`). */
  telemetry?: Telemetry;
  /** Ports to other operator lanes (automation task counts); each reports nothing until wired. */
  operatorLanes?: OperatorLanes;
}

/** Per-request variables set by middleware. */
export interface AppEnv {
  Variables: {
    requestId: string;
    /** Who made the request: `token` when authenticated with the API token, else `local`. */
    actor: string;
    /** The request's trace id (`X-Trace-Id`, a W3C `traceparent`'s, or a new one). */
    traceId: string;
  };
}
