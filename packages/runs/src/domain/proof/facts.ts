import { ACTING_STEP_TYPES } from "../browser-steps.js";
import type { EventType } from "../run.js";
import type { EndReason, RunStatus } from "../status.js";
import type { Step } from "../steps.js";

/*
 * What proof and review know of a run: its row, its event log and its browser-step evidence, read by the
 * engine and handed to the pure computations of this folder. Nothing here does I/O.
 */

/** One entry of a run's event log, as proof reads it. */
export interface FactEvent {
  type: EventType;
  data: Record<string, unknown>;
  /** Epoch milliseconds. */
  at: number;
}

/** One browser step's evidence row, as proof reads it. */
export interface FactEvidence {
  stepId: string;
  stepType: string;
  outcome: string;
  durationMs: number;
  detail: Record<string, unknown>;
  /** Screenshot name (`before`, `after`, …) → path. */
  screenshots: Record<string, string>;
}

/** A run with its events and evidence. */
export interface RunFacts {
  id: string;
  templateId: string | null;
  status: RunStatus;
  reason: EndReason | null;
  error: string | null;
  steps: readonly Step[];
  createdAt: number;
  finishedAt: number | null;
  events: readonly FactEvent[];
  evidence: readonly FactEvidence[];
}

/** Browser step types that act on the page: their before/after screenshots are critical evidence. */
export { ACTING_STEP_TYPES };

/** Browser step types that take before/after screenshots. */
export const EVIDENCE_STEP_TYPES = [
  ...ACTING_STEP_TYPES,
  "wait_for",
  "extract",
  "screenshot",
  "assert",
] as const;

/** One finished execution of a step (a `step_finished` event). */
export interface StepExecution {
  stepId: string;
  outcome: string;
  durationMs: number;
  message: string | undefined;
  code: string | undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Every finished execution of a step, in order. */
export function executionsOf(run: RunFacts): StepExecution[] {
  return run.events
    .filter((e) => e.type === "step_finished")
    .map((e) => ({
      stepId: str(e.data.step_id) ?? "?",
      outcome: str(e.data.outcome) ?? "?",
      durationMs: typeof e.data.duration_ms === "number" ? e.data.duration_ms : 0,
      message: str(e.data.message),
      code: str(e.data.code),
    }));
}

/** Milliseconds each step took over the run (summed when a step ran more than once). */
export function stepDurations(run: RunFacts): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of executionsOf(run)) out.set(x.stepId, (out.get(x.stepId) ?? 0) + x.durationMs);
  return out;
}

/** The reason a failed step execution is counted under: its code, the run's end reason, or `step_failed`. */
export function failureReasonOf(run: RunFacts, execution: StepExecution, isLastFailure: boolean): string {
  if (execution.code !== undefined) return execution.code;
  if (isLastFailure && run.status === "failed" && run.reason !== null) return run.reason;
  return "step_failed";
}

/** The failed step executions of a run with the reason each is counted under. */
export function failedSteps(run: RunFacts): Array<StepExecution & { reason: string }> {
  const failed = executionsOf(run).filter((x) => x.outcome === "failed");
  return failed.map((x, i) => ({ ...x, reason: failureReasonOf(run, x, i === failed.length - 1) }));
}

/** Gates a run opened, passed (resolved and not rejected) and let expire. */
export interface GateCounts {
  opened: number;
  passed: number;
  expired: number;
}

/** Counts the run's gates from its event log. */
export function gateCounts(run: RunFacts): GateCounts {
  let opened = 0;
  let passed = 0;
  let expired = 0;
  for (const e of run.events) {
    if (e.type === "gate_opened") opened++;
    else if (e.type === "gate_resolved" && e.data.approved !== false) passed++;
    else if (e.type === "gate_expired") expired++;
  }
  return { opened, passed, expired };
}

/** A step's evidence as proof judges it. */
export interface StepEvidenceCheck {
  stepId: string;
  stepType: string;
  /** An acting browser step, or a browser step at a protected provider. */
  critical: boolean;
  hasBefore: boolean;
  hasAfter: boolean;
  /** Screenshots were skipped on purpose: the step put a secret or a code on the page. */
  exempt: boolean;
}

/** Evidence checks of each browser step the run executed (one per evidence row). */
export function evidenceChecks(run: RunFacts): StepEvidenceCheck[] {
  const providerSteps = new Set(
    run.events
      .filter((e) => e.type === "gate_opened" && e.data.reason_code === "provider_protected_payment_step")
      .map((e) => str(e.data.step_id)),
  );
  return run.evidence
    .filter((e) => (EVIDENCE_STEP_TYPES as readonly string[]).includes(e.stepType))
    .map((e) => ({
      stepId: e.stepId,
      stepType: e.stepType,
      critical: (ACTING_STEP_TYPES as readonly string[]).includes(e.stepType) || providerSteps.has(e.stepId),
      hasBefore: e.screenshots.before !== undefined,
      hasAfter: e.screenshots.after !== undefined,
      exempt: e.detail.screenshots_skipped !== undefined,
    }));
}

/** Steps with evidence: executed browser steps, those with both screenshots, and critical ones missing them. */
export interface EvidenceCounts {
  steps: number;
  withBeforeAfter: number;
  criticalMissing: string[];
}

/** Counts a run's evidence coverage. */
export function evidenceCounts(run: RunFacts): EvidenceCounts {
  const checks = evidenceChecks(run).filter((c) => !c.exempt);
  return {
    steps: checks.length,
    withBeforeAfter: checks.filter((c) => c.hasBefore && c.hasAfter).length,
    criticalMissing: checks.filter((c) => c.critical && !(c.hasBefore && c.hasAfter)).map((c) => c.stepId),
  };
}

/** Milliseconds from creation to the end, for runs that ended. */
export function durationOf(run: RunFacts): number | null {
  return run.finishedAt === null ? null : Math.max(0, run.finishedAt - run.createdAt);
}

/** The median of `values`; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const hi = sorted[mid] ?? 0;
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] ?? 0) + hi) / 2;
}

/** The nearest-rank `p`th percentile of `values`; null for none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? null;
}

/** `a / b`, or null when `b` is 0. */
export function ratio(a: number, b: number): number | null {
  return b === 0 ? null : a / b;
}

/** Retries seen in a run: re-claims after a lost lease, refused one-time codes, steps executed again. */
export function retriesOf(run: RunFacts): Array<{ kind: string; stepId: string | undefined }> {
  const out: Array<{ kind: string; stepId: string | undefined }> = [];
  for (const e of run.events) {
    if (e.type === "lease_expired") out.push({ kind: "lease_expired", stepId: undefined });
    if (e.type === "gate_opened" && e.data.reason_code === "otp_rejected") {
      out.push({ kind: "otp_rejected", stepId: str(e.data.step_id) });
    }
  }
  const attempts = new Map<string, number>();
  for (const x of executionsOf(run)) attempts.set(x.stepId, (attempts.get(x.stepId) ?? 0) + 1);
  const recoded = new Set(out.map((x) => x.stepId));
  for (const [stepId, n] of attempts) {
    if (recoded.has(stepId)) continue;
    for (let i = 1; i < n; i++) out.push({ kind: "step_repeated", stepId });
  }
  return out;
}
