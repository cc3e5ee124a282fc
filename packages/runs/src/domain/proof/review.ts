import { isCheck } from "./compare.js";
import { failedSteps, percentile, type RunFacts, retriesOf, stepDurations } from "./facts.js";
import type { Finding, Severity } from "./schemas.js";

/** How many earlier executions of a step the template's history needs before "slow" means anything. */
export const MIN_HISTORY = 3;

const SEVERITY_ORDER: readonly Severity[] = ["high", "medium", "low", "info"];

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function failureFindings(run: RunFacts): Finding[] {
  const checks = new Set(run.steps.filter(isCheck).map((s) => s.id));
  return failedSteps(run).map((x) => {
    const assertion = checks.has(x.stepId) || x.reason === "assertion_failed";
    return {
      kind: assertion ? "failed_assertion" : "failed_step",
      severity: "high",
      step_id: x.stepId,
      message: `${assertion ? "Check" : "Step"} ${x.stepId} failed (${x.reason})${x.message === undefined ? "" : `: ${x.message}`}`,
      data: { reason: x.reason, duration_ms: x.durationMs },
    } satisfies Finding;
  });
}

/** Steps slower than the 95th percentile of the same step in the template's other runs. */
function slowFindings(run: RunFacts, history: ReadonlyMap<string, readonly number[]>): Finding[] {
  const out: Finding[] = [];
  for (const [stepId, ms] of stepDurations(run)) {
    const past = history.get(stepId) ?? [];
    if (past.length < MIN_HISTORY) continue;
    const p95 = percentile(past, 95);
    if (p95 === null || ms <= p95) continue;
    out.push({
      kind: "slow_step",
      severity: "medium",
      step_id: stepId,
      message: `Step ${stepId} took ${ms} ms, over the p95 of ${p95} ms in ${past.length} earlier runs of the template`,
      data: { duration_ms: ms, p95_ms: p95, samples: past.length },
    });
  }
  return out;
}

function gateFindings(run: RunFacts): Finding[] {
  const out: Finding[] = [];
  for (const e of run.events) {
    const stepId = str(e.data.step_id);
    if (e.type === "gate_expired") {
      out.push({
        kind: "gate_expired",
        severity: "high",
        step_id: stepId,
        message: `The gate at ${stepId ?? "?"} (${str(e.data.reason_code) ?? "?"}) expired unanswered`,
        data: { reason_code: e.data.reason_code ?? null },
      });
    } else if (e.type === "gate_opened" && e.data.reason_code === "provider_protected_payment_step") {
      out.push({
        kind: "protected_provider_pause",
        severity: "info",
        step_id: stepId,
        message: `The run paused before ${stepId ?? "?"} reached the protected provider ${str(e.data.provider_domain) ?? "?"}`,
        data: { provider_domain: e.data.provider_domain ?? null },
      });
    }
  }
  return out;
}

const RETRY_TEXT: Record<string, string> = {
  lease_expired: "A worker lost the run's lease; another continued from the last completed step",
  otp_rejected: "A one-time code was refused and asked for again",
  step_repeated: "The step was executed again",
};

function retryFindings(run: RunFacts): Finding[] {
  return retriesOf(run).map((x) => ({
    kind: "retry",
    severity: x.kind === "step_repeated" ? "low" : "medium",
    step_id: x.stepId ?? null,
    message: `${RETRY_TEXT[x.kind] ?? x.kind}${x.stepId === undefined ? "" : ` (${x.stepId})`}`,
    data: { retry: x.kind },
  }));
}

/**
 * The deterministic findings of a run, most severe first: failed assertions and steps (high), gates that
 * expired (high), steps slower than the p95 of the same step in `history` (the template's other runs;
 * at least {@link MIN_HISTORY} samples; medium), retries (medium; a repeated step low) and pauses before a
 * protected provider (info).
 */
export function reviewFindings(run: RunFacts, history: ReadonlyMap<string, readonly number[]>): Finding[] {
  const all = [
    ...failureFindings(run),
    ...gateFindings(run),
    ...slowFindings(run, history),
    ...retryFindings(run),
  ];
  return all
    .map((f, i) => ({ f, i }))
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.f.severity) - SEVERITY_ORDER.indexOf(b.f.severity) || a.i - b.i)
    .map((x) => x.f);
}

/** The prompt a review model is asked to narrate: the findings as lines, never secrets (none are in them). */
export function narrativePrompt(run: RunFacts, findings: readonly Finding[]): string {
  const lines = findings.map((f) => `- [${f.severity}] ${f.message}`);
  return [
    `Run ${run.id} ended ${run.status}${run.reason === null ? "" : ` (${run.reason})`}.`,
    findings.length === 0 ? "No findings." : `Findings:\n${lines.join("\n")}`,
    "Write one short paragraph for a release reviewer: what happened and what to look at first.",
  ].join("\n");
}
