import { isTerminal, RUN_STATUSES, type RunStatus } from "../status.js";
import {
  durationOf,
  evidenceCounts,
  failedSteps,
  gateCounts,
  median,
  type RunFacts,
  ratio,
} from "./facts.js";
import type { CampaignDiff, CampaignPolicy, CampaignReport, Violation } from "./schemas.js";

/** The violations of one run: not ended, failed or cancelled, or critical evidence missing. */
export function violationsOf(run: RunFacts): Violation[] {
  const out: Violation[] = [];
  const why = run.reason === null ? "" : ` (${run.reason}${run.error === null ? "" : `: ${run.error}`})`;
  if (!isTerminal(run.status)) {
    out.push({
      code: "RUN_NOT_FINISHED",
      run_id: run.id,
      step_id: null,
      message: `Run ${run.id} is still ${run.status}: it proves nothing until it ends.`,
    });
  } else if (run.status === "failed") {
    out.push({ code: "RUN_FAILED", run_id: run.id, step_id: null, message: `Run ${run.id} failed${why}.` });
  } else if (run.status === "cancelled") {
    out.push({
      code: "RUN_CANCELLED",
      run_id: run.id,
      step_id: null,
      message: `Run ${run.id} was cancelled${why}.`,
    });
  }
  for (const stepId of evidenceCounts(run).criticalMissing) {
    out.push({
      code: "CRITICAL_EVIDENCE_MISSING",
      run_id: run.id,
      step_id: stepId,
      message: `Step ${stepId} of run ${run.id} acted on the page without a before and an after screenshot.`,
    });
  }
  return out;
}

/**
 * The report of a campaign over `runs`: runs by status, valid runs (ended in success), gates opened,
 * passed and expired, failed steps by reason, evidence coverage (browser steps with a before and an after
 * screenshot), the median duration of the runs that ended, and the verdict: `strict` fails on any
 * violation; `standard` lists them and fails only when no run is valid.
 */
export function buildReport(runs: readonly RunFacts[], policy: CampaignPolicy): CampaignReport {
  const byStatus = Object.fromEntries(RUN_STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>;
  const gates = { opened: 0, passed: 0, expired: 0 };
  const failedByReason: Record<string, number> = {};
  const evidence = { steps: 0, with_before_after: 0, critical_missing: 0 };
  const durations: number[] = [];
  const violations: Violation[] = [];
  for (const run of runs) {
    byStatus[run.status]++;
    const g = gateCounts(run);
    gates.opened += g.opened;
    gates.passed += g.passed;
    gates.expired += g.expired;
    for (const step of failedSteps(run)) failedByReason[step.reason] = (failedByReason[step.reason] ?? 0) + 1;
    const e = evidenceCounts(run);
    evidence.steps += e.steps;
    evidence.with_before_after += e.withBeforeAfter;
    evidence.critical_missing += e.criticalMissing.length;
    const d = durationOf(run);
    if (d !== null) durations.push(d);
    violations.push(...violationsOf(run));
  }
  const valid = byStatus.success;
  if (valid === 0) {
    violations.push({
      code: "NO_VALID_RUN",
      run_id: null,
      step_id: null,
      message: "No run of the campaign ended in success.",
    });
  }
  const failed = policy === "strict" ? violations.length > 0 : valid === 0;
  return {
    run_count: runs.length,
    runs_by_status: byStatus,
    valid_runs: valid,
    gates: { ...gates, pass_rate: ratio(gates.passed, gates.opened) },
    steps_failed_by_reason: failedByReason,
    evidence: { ...evidence, coverage: ratio(evidence.with_before_after, evidence.steps) },
    median_duration_ms: median(durations),
    status: failed ? "failed" : "passed",
    violations,
  };
}

function delta(a: number | null, b: number | null) {
  return { this: a, other: b, delta: a === null || b === null ? null : a - b };
}

/** This campaign's report against another's: each figure, the other's, and this minus the other. */
export function diffReports(
  ids: { campaign: string; other: string },
  mine: CampaignReport,
  other: CampaignReport,
): CampaignDiff {
  return {
    campaign_id: ids.campaign,
    other_campaign_id: ids.other,
    run_count: delta(mine.run_count, other.run_count),
    valid_runs: delta(mine.valid_runs, other.valid_runs),
    gate_pass_rate: delta(mine.gates.pass_rate, other.gates.pass_rate),
    evidence_coverage: delta(mine.evidence.coverage, other.evidence.coverage),
    median_duration_ms: delta(mine.median_duration_ms, other.median_duration_ms),
  };
}
