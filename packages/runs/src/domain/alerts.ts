/*
 * The alert rules of the health lane: pure decisions over counts the engine reads. No I/O, no clock.
 */

/** How bad an alert is: `critical` above 1.5× the failure-rate threshold. */
export const ALERT_SEVERITIES = ["warning", "critical"] as const;
/** An alert's severity. */
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

/** The stable codes of the alerts. */
export const ALERT_CODES = [
  "RUN_FAILURE_RATE",
  "TASK_FAILURE_RATE",
  "RUNS_STUCK",
  "GATES_EXPIRING",
  "DATABASE_UNREACHABLE",
] as const;
/** An alert code. */
export type AlertCode = (typeof ALERT_CODES)[number];

/** One alert. */
export interface Alert {
  code: AlertCode;
  severity: AlertSeverity;
  message: string;
}

/** How many runs or tasks finished in the window, by outcome. */
export interface FinishedCounts {
  success: number;
  failed: number;
}

/** What the rules decide over. */
export interface AlertFacts {
  windowS: number;
  /** The failure rate (0–1) above which an alert is raised. */
  failureRateThreshold: number;
  runs: FinishedCounts;
  /** Absent until the automation lane is wired. */
  tasks?: FinishedCounts | undefined;
  /** Runs still `running` whose worker lease has expired. */
  stuckRunIds: readonly string[];
  /** Waiting runs whose gate expires within the horizon. */
  expiringGateRunIds: readonly string[];
  gateHorizonS: number;
  databaseOk: boolean;
}

/** The failure rate of finished work: failed / (success + failed); 0 when nothing finished. */
export function failureRate(counts: FinishedCounts): number {
  const total = counts.success + counts.failed;
  return total === 0 ? 0 : counts.failed / total;
}

/** `critical` above 1.5× the threshold, `warning` above it, else none. */
export function severityFor(rate: number, threshold: number): AlertSeverity | undefined {
  if (rate > threshold * 1.5) return "critical";
  if (rate > threshold) return "warning";
  return undefined;
}

function rateAlert(
  code: "RUN_FAILURE_RATE" | "TASK_FAILURE_RATE",
  noun: string,
  counts: FinishedCounts,
  facts: AlertFacts,
): Alert | undefined {
  const rate = failureRate(counts);
  const severity = severityFor(rate, facts.failureRateThreshold);
  if (severity === undefined) return undefined;
  const pct = (n: number) => `${Math.round(n * 1000) / 10}%`;
  return {
    code,
    severity,
    message: `${counts.failed} of ${counts.success + counts.failed} ${noun} finished in the last ${facts.windowS} s failed (${pct(rate)}, threshold ${pct(facts.failureRateThreshold)}).`,
  };
}

function listed(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).join(", ");
  return ids.length > 5 ? `${shown} and ${ids.length - 5} more` : shown;
}

/** Every alert the facts call for, most severe first; none means the state is `ok`. */
export function decideAlerts(facts: AlertFacts): Alert[] {
  const alerts: Alert[] = [];
  if (!facts.databaseOk) {
    alerts.push({
      code: "DATABASE_UNREACHABLE",
      severity: "critical",
      message: "The database does not answer.",
    });
  }
  const runs = rateAlert("RUN_FAILURE_RATE", "runs", facts.runs, facts);
  if (runs !== undefined) alerts.push(runs);
  const tasks =
    facts.tasks === undefined ? undefined : rateAlert("TASK_FAILURE_RATE", "tasks", facts.tasks, facts);
  if (tasks !== undefined) alerts.push(tasks);
  if (facts.stuckRunIds.length > 0) {
    alerts.push({
      code: "RUNS_STUCK",
      severity: "critical",
      message: `${facts.stuckRunIds.length} run(s) are running past their worker lease (${listed(facts.stuckRunIds)}): no server process is executing them.`,
    });
  }
  if (facts.expiringGateRunIds.length > 0) {
    alerts.push({
      code: "GATES_EXPIRING",
      severity: "warning",
      message: `${facts.expiringGateRunIds.length} gate(s) expire within ${facts.gateHorizonS} s (${listed(facts.expiringGateRunIds)}): answer them or the runs fail.`,
    });
  }
  return alerts.sort((a, b) => (a.severity === b.severity ? 0 : a.severity === "critical" ? -1 : 1));
}
