import type { FileorgEngine } from "@vetted/fileorg";
import type { BrowserHost } from "@vetted/runs";
import { type Alert, decideAlerts, type RunHealth, type Telemetry } from "@vetted/runs/telemetry";
import { type OpenDatabase, pingDatabase } from "./db.js";
import type { OpsMetrics } from "./ops-metrics.js";

/** Settings of the health lane (from the environment in `main.ts`; every one has a default). */
export interface HealthSettings {
  /** VETTED_RATE_LIMIT_PER_MINUTE (default 600). */
  rateLimitPerMinute?: number;
  /** VETTED_RATE_LIMIT_ANON_PER_MINUTE (default 120). */
  rateLimitAnonPerMinute?: number;
  /**
   * VETTED_RATE_LIMIT_SYNC_MS (default 1000): how often the rate-limit windows are exchanged with the
   * other server processes on the database; 0 keeps them per process.
   */
  rateLimitSyncMs?: number;
  /** VETTED_ALERT_WINDOW_S (default 3600). */
  alertWindowS?: number;
  /** VETTED_ALERT_FAILURE_RATE (default 0.2). */
  alertFailureRate?: number;
}

/** The defaults of {@link HealthSettings}. */
export const HEALTH_DEFAULTS = {
  rateLimitPerMinute: 600,
  rateLimitAnonPerMinute: 120,
  rateLimitSyncMs: 1000,
  alertWindowS: 3600,
  alertFailureRate: 0.2,
} as const satisfies Required<HealthSettings>;

/** Gates expiring within this many seconds are reported by alerts. */
export const GATE_EXPIRY_HORIZON_S = 600;

/** Automation task counts, as the automation lane reports them. */
export interface TaskCounts {
  by_status: Record<string, number>;
  /** Tasks that finished since the window start, by outcome. */
  finished_in_window: { success: number; failed: number; cancelled: number };
}

/** Ports to lanes composed elsewhere; each reports nothing until wired. */
export interface OperatorLanes {
  /** Task counts by status and those finished since `windowStartMs` (the automation lane). */
  taskCounts?: (windowStartMs: number) => Promise<TaskCounts>;
}

/** What the reports read from. */
export interface HealthSources {
  database: OpenDatabase;
  databaseIsFile: boolean;
  version: string;
  startedAt: number;
  telemetry: Telemetry;
  fileorg: Pick<FileorgEngine, "countJobs">;
  browser: Pick<BrowserHost, "status">;
  lanes: OperatorLanes;
  opsMetrics: OpsMetrics;
  settings: Required<HealthSettings>;
}

/** The alerts answer. */
export interface AlertsReport {
  state: "ok" | "degraded";
  window_s: number;
  failure_rate_threshold: number;
  runs: { success: number; failed: number; cancelled: number; failure_rate: number };
  tasks: { success: number; failed: number; cancelled: number; failure_rate: number } | null;
  stuck_run_ids: string[];
  expiring_gate_run_ids: string[];
  alerts: Alert[];
  checked_at: string;
}

function withRate(counts: { success: number; failed: number; cancelled: number }) {
  const finished = counts.success + counts.failed;
  return { ...counts, failure_rate: finished === 0 ? 0 : counts.failed / finished };
}

/** Reads the facts and decides the alerts. */
async function gather(s: HealthSources) {
  const { alertWindowS, alertFailureRate } = s.settings;
  const now = Date.now();
  const [database, runs, tasks] = await Promise.all([
    pingDatabase(s.database.client),
    s.telemetry
      .runHealth(alertWindowS * 1000, GATE_EXPIRY_HORIZON_S * 1000)
      .catch((): RunHealth | undefined => undefined),
    s.lanes.taskCounts?.(now - alertWindowS * 1000),
  ]);
  const alerts = decideAlerts({
    windowS: alertWindowS,
    failureRateThreshold: alertFailureRate,
    runs: runs?.finishedInWindow ?? { success: 0, failed: 0 },
    tasks: tasks?.finished_in_window,
    stuckRunIds: runs?.stuckRunIds ?? [],
    expiringGateRunIds: runs?.expiringGateRunIds ?? [],
    gateHorizonS: GATE_EXPIRY_HORIZON_S,
    databaseOk: database.ok && runs !== undefined,
  });
  return { now, database, runs, tasks, alerts };
}

/** `GET /api/health/alerts`: failure rates in the window, stuck runs, expiring gates, and the alerts raised. */
export async function alertsReport(s: HealthSources): Promise<AlertsReport> {
  const { now, runs, tasks, alerts } = await gather(s);
  return {
    state: alerts.length === 0 ? "ok" : "degraded",
    window_s: s.settings.alertWindowS,
    failure_rate_threshold: s.settings.alertFailureRate,
    runs: withRate(runs?.finishedInWindow ?? { success: 0, failed: 0, cancelled: 0 }),
    tasks: tasks === undefined ? null : withRate(tasks.finished_in_window),
    stuck_run_ids: runs?.stuckRunIds ?? [],
    expiring_gate_run_ids: runs?.expiringGateRunIds ?? [],
    alerts,
    checked_at: new Date(now).toISOString(),
  };
}

/** `GET /api/health/diagnostics`: everything an operator checks first. */
export async function diagnosticsReport(s: HealthSources) {
  const [{ database, runs, tasks, alerts }, jobs, metrics] = await Promise.all([
    gather(s),
    s.fileorg.countJobs(),
    s.opsMetrics.snapshot(),
  ]);
  return {
    status: alerts.length === 0 ? ("ok" as const) : ("degraded" as const),
    version: s.version,
    uptime_s: Math.round((Date.now() - s.startedAt) / 1000),
    storage: {
      backend: s.databaseIsFile ? ("file" as const) : ("libsql-remote" as const),
      ok: database.ok,
      latency_ms: database.latency_ms,
    },
    runs: { by_status: runs?.byStatus ?? {}, leases: runs?.leases ?? { held: 0, expired: 0 } },
    tasks: tasks === undefined ? null : { by_status: tasks.by_status },
    file_jobs: { by_status: jobs.byStatus, leases: jobs.leases },
    leases_held: { runs: runs?.leases.held ?? 0, file_jobs: jobs.leases.held },
    browser: s.browser.status(),
    alerts: alerts.map((a) => a.code),
    metrics,
  };
}

/** The automation lane as the reports' task-counts port. */
export function automationLanes(automation: {
  taskCounts(): Promise<Record<string, number>>;
  finishedSince(since: number): Promise<TaskCounts["finished_in_window"]>;
}): OperatorLanes {
  return {
    taskCounts: async (windowStartMs) => ({
      by_status: await automation.taskCounts(),
      finished_in_window: await automation.finishedSince(windowStartMs),
    }),
  };
}
