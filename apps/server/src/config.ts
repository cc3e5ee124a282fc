import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, parseHostRules, parseProtectedDomains } from "@vetted/runs";
import { z } from "zod";

/** Hostnames that only this machine can reach. */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "::1", "localhost"]);

/** True when `host` names the loopback interface (127.0.0.0/8, ::1 or localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return LOOPBACK_HOSTS.has(bare) || /^127(\.\d{1,3}){3}$/.test(bare);
}

const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  );

/** A comma-separated list of hosts and CIDRs, each checked to parse. */
function hostList(name: string) {
  return commaList.superRefine((entries, ctx) => {
    try {
      parseHostRules(entries);
    } catch (err) {
      ctx.addIssue({
        code: "custom",
        message: `${name}: ${err instanceof Error ? err.message : String(err)}; give comma-separated host names, IP addresses or CIDR ranges (e.g. api.example.com,10.0.0.0/8)`,
      });
    }
  });
}

const envSchema = z
  .object({
    HOST: z.string().min(1, "HOST must not be empty").default("127.0.0.1"),
    PORT: z.coerce
      .number({ error: "PORT must be a number" })
      .int("PORT must be a whole number")
      .min(0, "PORT must be between 0 and 65535")
      .max(65535, "PORT must be between 0 and 65535")
      .default(8787),
    VETTED_DATA_DIR: z.string().min(1).optional(),
    DATABASE_URL: z
      .string()
      .regex(/^(file:|libsql:\/\/|https?:\/\/|wss?:\/\/)/, {
        error: "DATABASE_URL must start with file:, libsql://, http(s):// or ws(s)://",
      })
      .optional(),
    DATABASE_AUTH_TOKEN: z.string().min(1).optional(),
    VETTED_API_TOKEN: z.string().min(16, "VETTED_API_TOKEN must be at least 16 characters").optional(),
    VETTED_ALLOWED_HOSTS: commaList,
    VETTED_CORS_ORIGINS: commaList,
    VETTED_MAX_BODY_BYTES: z.coerce
      .number({ error: "VETTED_MAX_BODY_BYTES must be a number" })
      .int()
      .min(1024, "VETTED_MAX_BODY_BYTES must be at least 1024")
      .default(1024 * 1024),
    VETTED_DB_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).default(5000),
    VETTED_FRONTEND_URL: z.url({ error: "VETTED_FRONTEND_URL must be an absolute URL" }).optional(),
    VETTED_WEB_DIST: z.string().min(1).optional(),
    VETTED_COMPARISON_FILE: z.string().min(1).optional(),
    VETTED_PROTECTED_PROVIDER_DOMAINS: z.string().optional(),
    VETTED_HTTP_ALLOW: hostList("VETTED_HTTP_ALLOW"),
    VETTED_HTTP_DENY: hostList("VETTED_HTTP_DENY"),
    VETTED_RUNS_LEASE_MS: z.coerce
      .number()
      .int()
      .min(100, "VETTED_RUNS_LEASE_MS must be at least 100")
      .default(30_000),
    VETTED_RUNS_POLL_MS: z.coerce
      .number()
      .int()
      .min(10, "VETTED_RUNS_POLL_MS must be at least 10")
      .default(500),
    VETTED_RUNS_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    VETTED_CHROMIUM_PATH: z.string().optional(),
    VETTED_BROWSER_MAX_CONTEXTS: z.coerce
      .number({ error: "VETTED_BROWSER_MAX_CONTEXTS must be a number" })
      .int()
      .min(1, "VETTED_BROWSER_MAX_CONTEXTS must be at least 1")
      .max(64, "VETTED_BROWSER_MAX_CONTEXTS must be at most 64")
      .default(4),
    VETTED_BROWSER_IDLE_MS: z.coerce
      .number({ error: "VETTED_BROWSER_IDLE_MS must be a number" })
      .int()
      .min(1000, "VETTED_BROWSER_IDLE_MS must be at least 1000")
      .default(300_000),
    VETTED_CU_PLANNER_URL: z
      .url({ error: "VETTED_CU_PLANNER_URL must be an absolute http(s) URL" })
      .refine((u) => /^https?:/i.test(u), "VETTED_CU_PLANNER_URL must be an http(s) URL")
      .optional(),
    VETTED_CU_PLANNER_MODEL: z.string().min(1).optional(),
    VETTED_CU_PLANNER_API_KEY: z.string().min(1).optional(),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    VETTED_ALLOWED_ROOTS: commaList,
    VETTED_JOURNAL_KEY: z.string().min(16, "VETTED_JOURNAL_KEY must be at least 16 characters").optional(),
    VETTED_SECRETS_KEY: z.string().min(16, "VETTED_SECRETS_KEY must be at least 16 characters").optional(),
    VETTED_FILEORG_LEASE_MS: z.coerce
      .number()
      .int()
      .min(100, "VETTED_FILEORG_LEASE_MS must be at least 100")
      .default(30_000),
    VETTED_HEADERS_TIMEOUT_MS: z.coerce
      .number({ error: "VETTED_HEADERS_TIMEOUT_MS must be a number" })
      .int("VETTED_HEADERS_TIMEOUT_MS must be a whole number")
      .min(100, "VETTED_HEADERS_TIMEOUT_MS must be at least 100")
      .max(600_000, "VETTED_HEADERS_TIMEOUT_MS must be at most 600000")
      .default(15_000),
    VETTED_REQUEST_TIMEOUT_MS: z.coerce
      .number({ error: "VETTED_REQUEST_TIMEOUT_MS must be a number" })
      .int("VETTED_REQUEST_TIMEOUT_MS must be a whole number")
      .min(100, "VETTED_REQUEST_TIMEOUT_MS must be at least 100")
      .max(3_600_000, "VETTED_REQUEST_TIMEOUT_MS must be at most 3600000")
      .default(60_000),
    VETTED_VONAGE_INBOUND_TOKEN: z
      .string()
      .min(16, "VETTED_VONAGE_INBOUND_TOKEN must be at least 16 characters")
      .optional(),
    VETTED_VONAGE_SIGNATURE_SECRET: z
      .string()
      .min(16, "VETTED_VONAGE_SIGNATURE_SECRET must be at least 16 characters")
      .optional(),
    VETTED_VONAGE_MAX_SKEW_S: z.coerce
      .number({ error: "VETTED_VONAGE_MAX_SKEW_S must be a number" })
      .int("VETTED_VONAGE_MAX_SKEW_S must be a whole number")
      .min(1, "VETTED_VONAGE_MAX_SKEW_S must be at least 1")
      .max(86_400, "VETTED_VONAGE_MAX_SKEW_S must be at most 86400")
      .default(600),
    VETTED_EMBEDDINGS_URL: z.url({ error: "VETTED_EMBEDDINGS_URL must be an absolute URL" }).optional(),
    VETTED_EMBEDDINGS_MODEL: z.string().min(1).max(200).optional(),
    VETTED_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  })
  .superRefine((env, ctx) => {
    if (env.VETTED_EMBEDDINGS_URL !== undefined && env.VETTED_EMBEDDINGS_MODEL === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VETTED_EMBEDDINGS_MODEL"],
        message: "VETTED_EMBEDDINGS_URL is set: name the model to call with VETTED_EMBEDDINGS_MODEL",
      });
    }
    if (env.VETTED_HEADERS_TIMEOUT_MS > env.VETTED_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["VETTED_HEADERS_TIMEOUT_MS"],
        message: "VETTED_HEADERS_TIMEOUT_MS must not exceed VETTED_REQUEST_TIMEOUT_MS",
      });
    }
    if (!isLoopbackHost(env.HOST) && env.VETTED_API_TOKEN === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VETTED_API_TOKEN"],
        message: `HOST=${env.HOST} is reachable from other machines: set VETTED_API_TOKEN (at least 16 characters) or bind to 127.0.0.1`,
      });
    }
  });

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
  /** Time to receive a request's headers (VETTED_HEADERS_TIMEOUT_MS); slower clients get a 408. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (VETTED_REQUEST_TIMEOUT_MS); responses such as event streams are not limited. */
  requestTimeoutMs: number;
  /** Inbound Vonage SMS: the shared header token, the signature secret, the timestamp skew allowed. */
  vonage: VonageSettings;
  /** An optional OpenAI-compatible embeddings model beside the local one (VETTED_EMBEDDINGS_*). */
  embeddingsRemote: { url: string; model: string; apiKey: string | undefined } | undefined;
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

/**
 * Reads the server configuration from environment variables.
 * @throws ConfigError listing every bad variable with what to do about it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`),
    );
  }
  const e = parsed.data;
  const dataDir = resolve(e.VETTED_DATA_DIR ?? defaultDataDir(env));
  const databaseUrl = e.DATABASE_URL ?? `file:${join(dataDir, "vetted.db")}`;
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
    allowedRoots:
      e.VETTED_ALLOWED_ROOTS.length > 0
        ? e.VETTED_ALLOWED_ROOTS.map((root) => resolve(root))
        : [homedir(), tmpdir()],
    journalKey: e.VETTED_JOURNAL_KEY,
    secretsKey: e.VETTED_SECRETS_KEY,
    fileorgLeaseMs: e.VETTED_FILEORG_LEASE_MS,
    headersTimeoutMs: e.VETTED_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.VETTED_REQUEST_TIMEOUT_MS,
    vonage: {
      inboundToken: e.VETTED_VONAGE_INBOUND_TOKEN,
      signatureSecret: e.VETTED_VONAGE_SIGNATURE_SECRET,
      maxSkewS: e.VETTED_VONAGE_MAX_SKEW_S,
    },
    embeddingsRemote:
      e.VETTED_EMBEDDINGS_URL === undefined || e.VETTED_EMBEDDINGS_MODEL === undefined
        ? undefined
        : {
            url: e.VETTED_EMBEDDINGS_URL,
            model: e.VETTED_EMBEDDINGS_MODEL,
            apiKey: e.VETTED_EMBEDDINGS_API_KEY,
          },
  };
}
