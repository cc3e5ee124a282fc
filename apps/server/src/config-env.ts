/**
 * The server's environment schema: every variable it reads (the README's configuration table; a test keeps
 * the two in step), parsed with zod into typed values and defaults, with messages that name the variable.
 * `config.ts` turns the parsed values into the `Config` the server runs with.
 */
import { parseHostRules } from "@vetted/runs";
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

/** The environment variables the server reads, each validated with a message naming what to do. */
export const envSchema = z
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
    VETTED_PREVIEW_CACHE_BYTES: z.coerce
      .number({ error: "VETTED_PREVIEW_CACHE_BYTES must be a number" })
      .int("VETTED_PREVIEW_CACHE_BYTES must be a whole number of bytes")
      .min(1, "VETTED_PREVIEW_CACHE_BYTES must be at least 1")
      .max(Number.MAX_SAFE_INTEGER, "VETTED_PREVIEW_CACHE_BYTES is too large")
      .default(268_435_456),
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
    VETTED_AUTOMATION_COMMANDS: z.string().min(1).optional(),
    VETTED_AUTOMATION_MAX_PARALLEL: z.coerce
      .number({ error: "VETTED_AUTOMATION_MAX_PARALLEL must be a number" })
      .int()
      .min(1, "VETTED_AUTOMATION_MAX_PARALLEL must be at least 1")
      .max(64, "VETTED_AUTOMATION_MAX_PARALLEL must be at most 64")
      .default(2),
    VETTED_AUTOMATION_QUEUE_MAX: z.coerce
      .number({ error: "VETTED_AUTOMATION_QUEUE_MAX must be a number" })
      .int()
      .min(1, "VETTED_AUTOMATION_QUEUE_MAX must be at least 1")
      .max(100_000, "VETTED_AUTOMATION_QUEUE_MAX must be at most 100000")
      .default(100),
    VETTED_AUTOMATION_LEASE_MS: z.coerce
      .number({ error: "VETTED_AUTOMATION_LEASE_MS must be a number" })
      .int()
      .min(300, "VETTED_AUTOMATION_LEASE_MS must be at least 300")
      .default(30_000),
    VETTED_AUTOMATION_KILL_GRACE_MS: z.coerce
      .number({ error: "VETTED_AUTOMATION_KILL_GRACE_MS must be a number" })
      .int()
      .min(0, "VETTED_AUTOMATION_KILL_GRACE_MS must be at least 0")
      .max(600_000, "VETTED_AUTOMATION_KILL_GRACE_MS must be at most 600000")
      .default(5_000),
    VETTED_AUTOMATION_RETRY_BASE_MS: z.coerce
      .number({ error: "VETTED_AUTOMATION_RETRY_BASE_MS must be a number" })
      .int()
      .min(10, "VETTED_AUTOMATION_RETRY_BASE_MS must be at least 10")
      .default(1_000),
    VETTED_RATE_LIMIT_PER_MINUTE: z.coerce
      .number({ error: "VETTED_RATE_LIMIT_PER_MINUTE must be a number" })
      .int("VETTED_RATE_LIMIT_PER_MINUTE must be a whole number")
      .min(1, "VETTED_RATE_LIMIT_PER_MINUTE must be at least 1")
      .default(600),
    VETTED_RATE_LIMIT_ANON_PER_MINUTE: z.coerce
      .number({ error: "VETTED_RATE_LIMIT_ANON_PER_MINUTE must be a number" })
      .int("VETTED_RATE_LIMIT_ANON_PER_MINUTE must be a whole number")
      .min(1, "VETTED_RATE_LIMIT_ANON_PER_MINUTE must be at least 1")
      .default(120),
    VETTED_RATE_LIMIT_SYNC_MS: z.coerce
      .number({ error: "VETTED_RATE_LIMIT_SYNC_MS must be a number" })
      .int("VETTED_RATE_LIMIT_SYNC_MS must be a whole number")
      .min(0, "VETTED_RATE_LIMIT_SYNC_MS must be 0 (per process) or more")
      .max(60_000, "VETTED_RATE_LIMIT_SYNC_MS must be at most 60000")
      .default(1_000),
    VETTED_ALERT_WINDOW_S: z.coerce
      .number({ error: "VETTED_ALERT_WINDOW_S must be a number" })
      .int("VETTED_ALERT_WINDOW_S must be a whole number")
      .min(1, "VETTED_ALERT_WINDOW_S must be at least 1")
      .max(30 * 86_400, "VETTED_ALERT_WINDOW_S must be at most 2592000 (30 days)")
      .default(3600),
    VETTED_ALERT_FAILURE_RATE: z.coerce
      .number({ error: "VETTED_ALERT_FAILURE_RATE must be a number" })
      .gt(0, "VETTED_ALERT_FAILURE_RATE must be above 0")
      .max(1, "VETTED_ALERT_FAILURE_RATE must be at most 1")
      .default(0.2),
    VETTED_REVIEW_MODEL_URL: z.url({ error: "VETTED_REVIEW_MODEL_URL must be an absolute URL" }).optional(),
    VETTED_REVIEW_MODEL: z.string().min(1).max(200).optional(),
    VETTED_REVIEW_MODEL_API_KEY: z.string().min(1).optional(),
    VETTED_WEBHOOK_POLL_MS: z.coerce
      .number({ error: "VETTED_WEBHOOK_POLL_MS must be a number" })
      .int("VETTED_WEBHOOK_POLL_MS must be a whole number")
      .min(10, "VETTED_WEBHOOK_POLL_MS must be at least 10")
      .default(1000),
    VETTED_WEBHOOK_RETRY_BASE_MS: z.coerce
      .number({ error: "VETTED_WEBHOOK_RETRY_BASE_MS must be a number" })
      .int("VETTED_WEBHOOK_RETRY_BASE_MS must be a whole number")
      .min(10, "VETTED_WEBHOOK_RETRY_BASE_MS must be at least 10")
      .default(10_000),
    VETTED_WEBHOOK_TIMEOUT_MS: z.coerce
      .number({ error: "VETTED_WEBHOOK_TIMEOUT_MS must be a number" })
      .int("VETTED_WEBHOOK_TIMEOUT_MS must be a whole number")
      .min(100, "VETTED_WEBHOOK_TIMEOUT_MS must be at least 100")
      .max(120_000, "VETTED_WEBHOOK_TIMEOUT_MS must be at most 120000")
      .default(10_000),
  })
  .superRefine((env, ctx) => {
    if (env.VETTED_REVIEW_MODEL_URL !== undefined && env.VETTED_REVIEW_MODEL === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["VETTED_REVIEW_MODEL"],
        message: "VETTED_REVIEW_MODEL_URL is set: name the model to call with VETTED_REVIEW_MODEL",
      });
    }
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

/** The parsed environment: every variable of `envSchema` with its default applied. */
export type ServerEnv = z.infer<typeof envSchema>;
