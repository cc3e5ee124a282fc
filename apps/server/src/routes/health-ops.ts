import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { RUN_STATUSES } from "@vetted/runs";
import { ALERT_CODES, ALERT_SEVERITIES, RumAccepted, RumIngest } from "@vetted/runs/telemetry";
import type { AppEnv } from "../deps.js";
import { ServerError } from "../errors.js";
import { alertsReport, diagnosticsReport, type HealthSources } from "../health-report.js";
import { validationError } from "../validation.js";
import { errorResponse, jsonBody, jsonResponse } from "./common.js";
import { BrowserStatus } from "./health.js";

const Counts = z.record(z.string(), z.number().int());
const Leases = z.object({ held: z.number().int(), expired: z.number().int() });
const Finished = z.object({
  success: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
  failure_rate: z.number(),
});

const AlertItem = z
  .object({ code: z.enum(ALERT_CODES), severity: z.enum(ALERT_SEVERITIES), message: z.string() })
  .meta({ id: "Alert" });

const Alerts = z
  .object({
    state: z.enum(["ok", "degraded"]),
    window_s: z.number().int(),
    failure_rate_threshold: z.number(),
    runs: Finished,
    tasks: Finished.nullable().meta({ description: "null until the automation lane is wired" }),
    stuck_run_ids: z.array(z.string()).meta({ description: "Runs running past their worker lease" }),
    expiring_gate_run_ids: z
      .array(z.string())
      .meta({ description: "Waiting runs whose gate expires within 10 min" }),
    alerts: z.array(AlertItem),
    checked_at: z.string(),
  })
  .meta({ id: "Alerts" });

const Diagnostics = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    uptime_s: z.number(),
    storage: z.object({
      backend: z.enum(["file", "libsql-remote"]),
      ok: z.boolean(),
      latency_ms: z.number(),
    }),
    runs: z.object({ by_status: Counts, leases: Leases }),
    tasks: z.object({ by_status: Counts }).nullable(),
    file_jobs: z.object({ by_status: Counts, leases: Leases }),
    leases_held: z.object({ runs: z.number().int(), file_jobs: z.number().int() }),
    browser: BrowserStatus,
    alerts: z.array(z.enum(ALERT_CODES)),
    metrics: z.object({
      http_requests_total: z.number(),
      http_server_errors_total: z.number(),
      rate_limited_total: z.number(),
      runs_timeouts_total: z.number(),
      runs_lease_expirations_total: z.number(),
      rum_samples_total: z.number(),
    }),
  })
  .meta({ id: "Diagnostics" });

const diagnosticsRoute = createRoute({
  method: "get",
  path: "/api/health/diagnostics",
  tags: ["health"],
  summary: "Uptime, version, storage, counts of runs, tasks and file jobs, leases, browser, metrics",
  description: `Run statuses: ${RUN_STATUSES.join(", ")}. Needs the API token when one is configured.`,
  responses: { 200: jsonResponse("Diagnostics", Diagnostics) },
});

const alertsRoute = createRoute({
  method: "get",
  path: "/api/health/alerts",
  tags: ["health"],
  summary: "Failure rates in the alert window, stuck runs, gates about to expire, and the alerts raised",
  responses: { 200: jsonResponse("The alert state", Alerts) },
});

const rumRoute = createRoute({
  method: "post",
  path: "/api/health/rum",
  tags: ["health"],
  summary: "Browser telemetry ingest: one web-vital sample or a batch of up to 100",
  description: "Open without a token (the web console sends it); rate-limited per client address.",
  security: [],
  request: { body: jsonBody(RumIngest) },
  responses: {
    202: jsonResponse("Samples stored", RumAccepted),
    422: errorResponse("TELEMETRY_INVALID: an unknown metric, a negative value, or a malformed sample"),
  },
});

/** `GET /api/health/diagnostics`, `GET /api/health/alerts` and `POST /api/health/rum`. */
export function createHealthOpsRoutes(sources: HealthSources) {
  return new OpenAPIHono<AppEnv>()
    .openapi(diagnosticsRoute, async (c) => c.json(await diagnosticsReport(sources), 200))
    .openapi(alertsRoute, async (c) => c.json(await alertsReport(sources), 200))
    .openapi(
      rumRoute,
      async (c) => c.json(await sources.telemetry.ingestRum(c.req.valid("json")), 202),
      (result) => {
        if (result.success) return undefined;
        const invalid = validationError(result.target, result.error);
        throw new ServerError("TELEMETRY_INVALID", invalid.message, invalid.details);
      },
    );
}
