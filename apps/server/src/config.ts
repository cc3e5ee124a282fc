import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, parseProtectedDomains } from "@vetted/runs";
import { envSchema, type ServerEnv } from "./config-env.js";

export { isLoopbackHost } from "./config-env.js";

/** The server's validated configuration. */
export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  databaseAuthToken: string | undefined;
  /** True when the database is a local SQLite file (WAL and a busy timeout apply). */
  databaseIsFile: boolean;
  apiToken: string | undefined;
  allowedHosts: string[];
  corsOrigins: string[];
  maxBodyBytes: number;
  dbBusyTimeoutMs: number;
  logLevel: "debug" | "info" | "warn" | "error" | "silent";
  /** Where `GET /register` sends people (an external frontend's `/register`); unset = the served console. */
  frontendUrl: string | undefined;
  /** The built web console served at `/` (VETTED_WEB_DIST; default the workspace's `apps/web/dist`). */
  webDist: string;
  /** The comparison document `GET /api/comparison/document` reads (VETTED_COMPARISON_FILE). */
  comparisonFile: string | undefined;
  /** Payment provider domains whose requests need approval (`VETTED_PROTECTED_PROVIDER_DOMAINS`). */
  protectedProviderDomains: string[];
  /** Hosts and CIDRs `http` steps may reach; empty = any not denied (VETTED_HTTP_ALLOW). */
  httpAllow: string[];
  /** Hosts and CIDRs `http` steps never reach, besides link-local and metadata addresses (VETTED_HTTP_DENY). */
  httpDeny: string[];
  /** Run worker lease, poll interval and concurrency. */
  runsLeaseMs: number;
  runsPollMs: number;
  runsConcurrency: number;
  /** The Chromium to drive, found from VETTED_CHROMIUM_PATH or the usual paths; undefined: no browser. */
  chromiumPath: string | undefined;
  /** Why no browser was found (for health and 503 answers). */
  chromiumMissingReason: string;
  /** Browser contexts alive at once; more wait in line (VETTED_BROWSER_MAX_CONTEXTS). */
  browserMaxContexts: number;
  /** An unused browser context is closed after this long (VETTED_BROWSER_IDLE_MS). */
  browserIdleMs: number;
  /** The OpenAI-compatible computer-use planner (VETTED_CU_PLANNER_URL, _MODEL, _API_KEY); off without URL and model. */
  cuPlanner: { url: string | undefined; model: string | undefined; apiKey: string | undefined };
  /** Directories file organization may read and write (VETTED_ALLOWED_ROOTS; default: home and temp). */
  allowedRoots: string[];
  /** Key signing the fileorg journal (VETTED_JOURNAL_KEY); generated into the data dir when unset. */
  journalKey: string | undefined;
  /** Key encrypting secret run params and one-time codes at rest (VETTED_SECRETS_KEY); generated into the data dir when unset. */
  secretsKey: string | undefined;
  /** How long a running fileorg job stays leased to this process without a heartbeat (VETTED_FILEORG_LEASE_MS). */
  fileorgLeaseMs: number;
  /** The thumbnail cache's byte budget; past it the least recently used thumbnails go (VETTED_PREVIEW_CACHE_BYTES). */
  previewCacheBytes: number;
  /** Time to receive a request's headers (VETTED_HEADERS_TIMEOUT_MS); slower clients get a 408. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (VETTED_REQUEST_TIMEOUT_MS); responses such as event streams are not limited. */
  requestTimeoutMs: number;
  /** Inbound Vonage SMS: the shared header token, the signature secret, the timestamp skew allowed. */
  vonage: VonageSettings;
  /** An optional OpenAI-compatible embeddings model beside the local one (VETTED_EMBEDDINGS_*). */
  embeddingsRemote: { url: string; model: string; apiKey: string | undefined } | undefined;
  /** The automation command lane (VETTED_AUTOMATION_*). */
  automation: AutomationSettings;
  /** Signed webhooks: dispatcher poll, first retry delay (doubling, for 24 h), attempt timeout (VETTED_WEBHOOK_*). */
  webhooks: { pollMs: number; retryBaseMs: number; timeoutMs: number };
  /** An optional OpenAI-compatible chat model that narrates run reviews (VETTED_REVIEW_MODEL_*). */
  reviewModel: { url: string; model: string; apiKey: string | undefined } | undefined;
  /** Rate limits and alert thresholds of the health lane (VETTED_RATE_LIMIT_*, VETTED_ALERT_*). */
  health: {
    rateLimitPerMinute: number;
    rateLimitAnonPerMinute: number;
    rateLimitSyncMs: number;
    alertWindowS: number;
    alertFailureRate: number;
  };
}

/** The automation lane's settings. */
export interface AutomationSettings {
  /** The operator commands file (VETTED_AUTOMATION_COMMANDS); none = the built-ins only. */
  commandsFile: string | undefined;
  /** Tasks this process runs at once (VETTED_AUTOMATION_MAX_PARALLEL). */
  maxParallel: number;
  /** Queued tasks at most; more → 429 QUEUE_FULL (VETTED_AUTOMATION_QUEUE_MAX). */
  queueMax: number;
  /** A running task's lease without a heartbeat (VETTED_AUTOMATION_LEASE_MS); a crash is noticed after it. */
  leaseMs: number;
  /** Between SIGTERM and SIGKILL of an aborted task's process group (VETTED_AUTOMATION_KILL_GRACE_MS). */
  killGraceMs: number;
  /** The first retry's backoff ceiling, doubled per attempt (VETTED_AUTOMATION_RETRY_BASE_MS). */
  retryBaseMs: number;
}

/** How inbound Vonage callbacks are authenticated; unset token or secret = the integration is off (503). */
export interface VonageSettings {
  inboundToken: string | undefined;
  signatureSecret: string | undefined;
  maxSkewS: number;
}

/** Thrown when the environment holds a value the server cannot start with. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}

function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_DATA_HOME;
  return xdg ? join(xdg, "vetted") : join(homedir(), ".local", "share", "vetted");
}

/** Validates the environment against `envSchema`; every issue becomes one line of a `ConfigError`. */
function parseEnv(env: NodeJS.ProcessEnv): ServerEnv {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`),
    );
  }
  return parsed.data;
}

/** The data directory and the database it holds (unless DATABASE_URL names another). */
function storage(e: ServerEnv, env: NodeJS.ProcessEnv): Pick<Config, "dataDir" | "databaseUrl"> {
  const dataDir = resolve(e.VETTED_DATA_DIR ?? defaultDataDir(env));
  return { dataDir, databaseUrl: e.DATABASE_URL ?? `file:${join(dataDir, "vetted.db")}` };
}

/** The Chromium to drive (or why there is none), the context pool and the computer-use planner. */
function browserSettings(
  e: ServerEnv,
): Pick<
  Config,
  "chromiumPath" | "chromiumMissingReason" | "browserMaxContexts" | "browserIdleMs" | "cuPlanner"
> {
  return {
    chromiumPath: findChromium({ VETTED_CHROMIUM_PATH: e.VETTED_CHROMIUM_PATH }),
    chromiumMissingReason:
      e.VETTED_CHROMIUM_PATH === undefined || e.VETTED_CHROMIUM_PATH.trim() === ""
        ? "no Chromium found in the usual places"
        : `VETTED_CHROMIUM_PATH=${e.VETTED_CHROMIUM_PATH} is not an executable file`,
    browserMaxContexts: e.VETTED_BROWSER_MAX_CONTEXTS,
    browserIdleMs: e.VETTED_BROWSER_IDLE_MS,
    cuPlanner: {
      url: e.VETTED_CU_PLANNER_URL,
      model: e.VETTED_CU_PLANNER_MODEL,
      apiKey: e.VETTED_CU_PLANNER_API_KEY,
    },
  };
}

/** An optional OpenAI-compatible model: on only when both its URL and its model name are set. */
function remoteModel(
  url: string | undefined,
  model: string | undefined,
  apiKey: string | undefined,
): { url: string; model: string; apiKey: string | undefined } | undefined {
  return url === undefined || model === undefined ? undefined : { url, model, apiKey };
}

function automationSettings(e: ServerEnv): AutomationSettings {
  return {
    commandsFile: e.VETTED_AUTOMATION_COMMANDS,
    maxParallel: e.VETTED_AUTOMATION_MAX_PARALLEL,
    queueMax: e.VETTED_AUTOMATION_QUEUE_MAX,
    leaseMs: e.VETTED_AUTOMATION_LEASE_MS,
    killGraceMs: e.VETTED_AUTOMATION_KILL_GRACE_MS,
    retryBaseMs: e.VETTED_AUTOMATION_RETRY_BASE_MS,
  };
}

function healthSettings(e: ServerEnv): Config["health"] {
  return {
    rateLimitPerMinute: e.VETTED_RATE_LIMIT_PER_MINUTE,
    rateLimitAnonPerMinute: e.VETTED_RATE_LIMIT_ANON_PER_MINUTE,
    rateLimitSyncMs: e.VETTED_RATE_LIMIT_SYNC_MS,
    alertWindowS: e.VETTED_ALERT_WINDOW_S,
    alertFailureRate: e.VETTED_ALERT_FAILURE_RATE,
  };
}

/**
 * Reads the server configuration from environment variables.
 * @throws ConfigError listing every bad variable with what to do about it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnv(env);
  const { dataDir, databaseUrl } = storage(e, env);
  return {
    host: e.HOST,
    port: e.PORT,
    dataDir,
    databaseUrl,
    databaseAuthToken: e.DATABASE_AUTH_TOKEN,
    databaseIsFile: databaseUrl.startsWith("file:"),
    apiToken: e.VETTED_API_TOKEN,
    allowedHosts: e.VETTED_ALLOWED_HOSTS,
    corsOrigins: e.VETTED_CORS_ORIGINS,
    maxBodyBytes: e.VETTED_MAX_BODY_BYTES,
    dbBusyTimeoutMs: e.VETTED_DB_BUSY_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    frontendUrl: e.VETTED_FRONTEND_URL,
    webDist: resolve(e.VETTED_WEB_DIST ?? fileURLToPath(new URL("../../web/dist", import.meta.url))),
    comparisonFile: e.VETTED_COMPARISON_FILE === undefined ? undefined : resolve(e.VETTED_COMPARISON_FILE),
    protectedProviderDomains: parseProtectedDomains(e.VETTED_PROTECTED_PROVIDER_DOMAINS),
    httpAllow: e.VETTED_HTTP_ALLOW,
    httpDeny: e.VETTED_HTTP_DENY,
    runsLeaseMs: e.VETTED_RUNS_LEASE_MS,
    runsPollMs: e.VETTED_RUNS_POLL_MS,
    runsConcurrency: e.VETTED_RUNS_CONCURRENCY,
    ...browserSettings(e),
    allowedRoots:
      e.VETTED_ALLOWED_ROOTS.length > 0
        ? e.VETTED_ALLOWED_ROOTS.map((root) => resolve(root))
        : [homedir(), tmpdir()],
    journalKey: e.VETTED_JOURNAL_KEY,
    secretsKey: e.VETTED_SECRETS_KEY,
    webhooks: {
      pollMs: e.VETTED_WEBHOOK_POLL_MS,
      retryBaseMs: e.VETTED_WEBHOOK_RETRY_BASE_MS,
      timeoutMs: e.VETTED_WEBHOOK_TIMEOUT_MS,
    },
    fileorgLeaseMs: e.VETTED_FILEORG_LEASE_MS,
    previewCacheBytes: e.VETTED_PREVIEW_CACHE_BYTES,
    headersTimeoutMs: e.VETTED_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.VETTED_REQUEST_TIMEOUT_MS,
    vonage: {
      inboundToken: e.VETTED_VONAGE_INBOUND_TOKEN,
      signatureSecret: e.VETTED_VONAGE_SIGNATURE_SECRET,
      maxSkewS: e.VETTED_VONAGE_MAX_SKEW_S,
    },
    embeddingsRemote: remoteModel(
      e.VETTED_EMBEDDINGS_URL,
      e.VETTED_EMBEDDINGS_MODEL,
      e.VETTED_EMBEDDINGS_API_KEY,
    ),
    automation: automationSettings(e),
    health: healthSettings(e),
    reviewModel: remoteModel(e.VETTED_REVIEW_MODEL_URL, e.VETTED_REVIEW_MODEL, e.VETTED_REVIEW_MODEL_API_KEY),
  };
}
