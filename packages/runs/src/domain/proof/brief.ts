import { isTerminal } from "../status.js";
import { durationOf, evidenceCounts, executionsOf, gateCounts, type RunFacts } from "./facts.js";
import { type Finding, type ReleaseBrief, type RunComparison, SEVERITIES, type Severity } from "./schemas.js";

/** A step at least this much slower (and {@link SLOWER_MIN_MS} ms) than the baseline's is a regression. */
export const SLOWER_FACTOR = 1.5;
/** The smallest slow-down that counts as a regression, in milliseconds. */
export const SLOWER_MIN_MS = 250;

type Recommendation = ReleaseBrief["recommendation"];

function regressionsOf(c: RunComparison): string[] {
  const out: string[] = [];
  if (c.left.status === "success" && c.right.status !== "success") {
    out.push(`The baseline ${c.left.run_id} succeeded; this run did not.`);
  }
  for (const s of c.steps) {
    if (s.left_ms === null || s.right_ms === null) continue;
    if (s.right_ms - s.left_ms >= SLOWER_MIN_MS && s.right_ms >= s.left_ms * SLOWER_FACTOR) {
      out.push(`Step ${s.step_id} took ${s.right_ms} ms against ${s.left_ms} ms in the baseline.`);
    }
  }
  for (const id of c.checks.removed) out.push(`Check ${id} of the baseline is gone.`);
  return out;
}

function decide(run: RunFacts, findings: readonly Finding[], regressions: string[], missing: string[]) {
  const reasons: string[] = [];
  let recommendation: Recommendation;
  const high = findings.filter((f) => f.severity === "high");
  if (run.status === "failed" || run.status === "cancelled" || high.length > 0) {
    recommendation = "blocked";
    if (run.status !== "success") {
      reasons.push(`The run ${run.status}${run.reason === null ? "" : ` (${run.reason})`}.`);
    }
    reasons.push(...high.map((f) => `${f.message}.`));
  } else if (!isTerminal(run.status)) {
    recommendation = "insufficient-evidence";
    reasons.push(`The run is still ${run.status}.`);
  } else if (missing.length > 0) {
    recommendation = "insufficient-evidence";
    reasons.push(`No before and after screenshots for the critical step(s) ${missing.join(", ")}.`);
  } else {
    const medium = findings.filter((f) => f.severity === "medium");
    if (medium.length > 0 || regressions.length > 0) {
      recommendation = "investigate";
      reasons.push(...medium.map((f) => `${f.message}.`), ...regressions);
    } else {
      recommendation = "review-ready";
      reasons.push("The run succeeded with no failed check, expired gate, retry, slow step or regression.");
    }
  }
  return { recommendation, reasons };
}

const NEXT_STEP: Record<Recommendation, string> = {
  blocked: "Fix the failing step (see reasons), rerun the template, and brief the new run.",
  investigate: "Look at the findings above with the run's evidence before approving the release.",
  "review-ready": "Hand the run and its evidence to a reviewer for sign-off.",
  "insufficient-evidence": "Let the run finish (or rerun it with screenshots enabled) before deciding.",
};

function questionsOf(run: RunFacts, findings: readonly Finding[], baseline: RunComparison | null): string[] {
  const out: string[] = [];
  if (baseline === null) out.push("No baseline run was given: is this step timing normal for the template?");
  if (run.templateId === null) out.push("The run has no template: which release does it vouch for?");
  if (findings.some((f) => f.kind === "protected_provider_pause")) {
    out.push("Who approved the request to the protected payment provider, and was it expected?");
  }
  if (findings.some((f) => f.kind === "retry"))
    out.push("Are the retries flakiness of the target or of the run?");
  return out;
}

/**
 * The release brief of a run: `blocked` when it failed, was cancelled or has a high finding;
 * `insufficient-evidence` when it has not ended or a critical step lacks its screenshots; `investigate` for
 * medium findings or regressions against the baseline (`baseline` compares the baseline, left, with the
 * run, right); `review-ready` otherwise. With the reasons, what was observed, an evidence snapshot, open
 * questions and the next step.
 */
export function releaseBrief(
  run: RunFacts,
  findings: readonly Finding[],
  baseline: RunComparison | null,
): ReleaseBrief {
  const evidence = evidenceCounts(run);
  const regressions = baseline === null ? [] : regressionsOf(baseline);
  const { recommendation, reasons } = decide(run, findings, regressions, evidence.criticalMissing);
  const executions = executionsOf(run);
  const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<Severity, number>;
  for (const f of findings) bySeverity[f.severity]++;
  return {
    run_id: run.id,
    baseline_run_id: baseline === null ? null : baseline.left.run_id,
    recommendation,
    reasons,
    observed: {
      status: run.status,
      reason: run.reason,
      duration_ms: durationOf(run),
      steps_finished: executions.length,
      steps_failed: executions.filter((x) => x.outcome === "failed").length,
      gates: gateCounts(run),
      findings_by_severity: bySeverity,
    },
    evidence_snapshot: {
      steps: evidence.steps,
      with_before_after: evidence.withBeforeAfter,
      critical_missing: evidence.criticalMissing,
      screenshots: run.evidence.reduce((n, e) => n + Object.keys(e.screenshots).length, 0),
    },
    open_questions: questionsOf(run, findings, baseline),
    next_step: NEXT_STEP[recommendation],
  };
}
