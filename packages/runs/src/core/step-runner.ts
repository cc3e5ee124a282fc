import { interpolate } from "../domain/interpolate.js";
import { matchProtectedDomain } from "../domain/providers.js";
import type { Step } from "../domain/steps.js";
import {
  completeStep,
  failInterpolation,
  failStep,
  failUnreadableSecrets,
  openGate,
  openProviderGate,
  openThreeDsGate,
  type RunState,
  stepAttempt,
  type Transition,
} from "../domain/transitions.js";
import { runBrowserStep } from "./browser-step.js";
import type { RunsResources } from "./resources.js";
import { guardOutcome, secretInHostOutcome, secretInUrlAuthority } from "./step-guard.js";
import { stepTypeOf } from "./steps/registry.js";
import type { StepOutcome, StepType } from "./steps/step-type.js";
import type { RunRow } from "./views.js";

/** Steps executed in memory and committed together while they are instant (pure steps, gates). */
const MAX_BATCH = 32;

/** A step that takes time, found by {@link advanceInstant}, with its interpolated form and type. */
export interface SlowStep {
  step: Step;
  resolvedStep: Step;
  type: StepType<Step>;
}

/** Executes one interpolated step; a throw becomes a failed outcome unless the run was aborted. */
export async function runStep(
  r: RunsResources,
  type: StepType<Step>,
  step: Step,
  row: RunRow,
  signal: AbortSignal,
  stepFetch: typeof globalThis.fetch = r.fetch,
): Promise<{ outcome: StepOutcome; durationMs: number }> {
  if (type.browser === true) return runBrowserStep(r, type, step, row, signal);
  const t0 = performance.now();
  let outcome: StepOutcome;
  try {
    outcome = await type.execute(step, {
      runId: row.id,
      stepId: step.id,
      attempt: stepAttempt(row.steps, step.id, row.otpAttempts),
      signal,
      retries: row.policies.retries,
      fetch: stepFetch,
      maxResponseBytes: r.maxResponseBytes,
      startedAt:
        row.stepStartedCursor === row.cursor && row.stepStartedAt !== null ? row.stepStartedAt : r.now(),
      now: r.now,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    outcome = {
      kind: "failed",
      reason: "step_failed",
      message: `${step.id}: ${err instanceof Error ? err.message : String(err)}`,
      expectation: false,
    };
  }
  return { outcome, durationMs: Math.round(performance.now() - t0) };
}

/** The transition a step's outcome makes (an OTP gate the template does not require is skipped). */
export function transitionFor(
  r: RunsResources,
  state: RunState,
  row: RunRow,
  result: StepOutcome,
  durationMs: number,
): Transition {
  const stepId = row.steps[state.cursor]?.id ?? "";
  const outcome = guardOutcome(result, stepId);
  if (outcome.kind === "completed" && outcome.threeDs !== undefined) {
    // The step is done; the run pauses before whatever follows it (even the end of the flow).
    const done = completeStep(state, row.steps, outcome, durationMs);
    const mid = { ...done.state, status: state.status };
    const gate = openThreeDsGate(mid, row.steps, stepId, outcome.threeDs, row.policies, r.now());
    const finished = done.events.filter((e) => e.type !== "status_changed");
    return { state: gate.state, events: [...finished, ...gate.events] };
  }
  if (outcome.kind === "completed") return completeStep(state, row.steps, outcome, durationMs);
  if (outcome.kind === "protected") {
    return openProviderGate(state, row.steps, outcome.provider_domain, row.policies, r.now());
  }
  if (outcome.kind === "failed")
    return failStep(state, row.steps, outcome, row.policies, durationMs, r.now());
  if (outcome.gate.kind === "otp" && row.policies.otp.required === false) {
    const skipped = { ...state, gate: { ...state.gate, otp_code: "" } };
    const detail = { skipped: "otp not required" };
    return completeStep(skipped, row.steps, { kind: "completed", detail }, 0);
  }
  return openGate(state, row.steps, outcome.gate, row.policies, r.now());
}

/** A run's secret params by reference (`secrets.token`). */
function secretRefs(secrets: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(secrets).map(([key, value]) => [`secrets.${key}`, value]));
}

type Next = { kind: "done"; t: Transition } | { kind: "slow"; slow: SlowStep };

/** What the step at the run's cursor comes to without taking time, or that it is a slow one. */
async function instantStep(
  r: RunsResources,
  row: RunRow,
  state: RunState,
  opened: ReturnType<RunsResources["vault"]["open"]>,
  step: Step,
): Promise<Next> {
  if (opened.unreadable.length > 0)
    return { kind: "done", t: failUnreadableSecrets(state, step.id, opened.unreadable) };
  const resolved = interpolate(step, r.vault.scopeOf(row, state, opened));
  if (!resolved.ok) return { kind: "done", t: failInterpolation(state, step.id, resolved.reference) };
  const resolvedStep = resolved.value as Step;
  const type = stepTypeOf(resolvedStep);
  const targets = type.targets?.(resolvedStep) ?? [];
  // Before anything judges (or resolves) a host: a secret in it would reach DNS and come back in errors.
  const leaked = secretInUrlAuthority(targets, secretRefs(opened.secrets));
  if (leaked !== undefined) {
    const outcome = secretInHostOutcome(step.id, leaked);
    return { kind: "done", t: failStep(state, row.steps, outcome, row.policies, 0, r.now()) };
  }
  const domain = targets
    .map((url) => matchProtectedDomain(url, r.protectedDomains))
    .find((d) => d !== undefined);
  if (domain !== undefined && !state.gate.approved_steps.includes(step.id)) {
    return { kind: "done", t: openProviderGate(state, row.steps, domain, row.policies, r.now()) };
  }
  if (type.effect !== "pure" && type.effect !== "gate")
    return { kind: "slow", slow: { step, resolvedStep, type } };
  const started = { type: "step_started" as const, data: { step_id: step.id, type: step.type } };
  const { outcome, durationMs } = await runStep(r, type, resolvedStep, row, new AbortController().signal);
  const t = transitionFor(r, state, row, outcome, durationMs);
  return { kind: "done", t: { state: t.state, events: [started, ...t.events] } };
}

/**
 * Runs instant steps (pure steps, gates, the protected-provider check, interpolation failures) in memory
 * from `start`, up to {@link MAX_BATCH}, and stops at the first step that takes time (returned as
 * `slow`) or when the run leaves `running`. The caller commits the result in one transaction.
 */
export async function advanceInstant(
  r: RunsResources,
  row: RunRow,
  start: Transition,
): Promise<Transition & { slow?: SlowStep }> {
  let state = start.state;
  const drafts = [...start.events];
  const opened = r.vault.open(row);
  for (let advanced = 0; state.status === "running" && advanced < MAX_BATCH; advanced++) {
    const step = row.steps[state.cursor];
    if (step === undefined) {
      const last = { ...state, cursor: row.steps.length - 1 };
      const t = completeStep(last, row.steps, { kind: "completed" }, 0);
      return { state: t.state, events: [...drafts, ...t.events] };
    }
    const next = await instantStep(r, row, state, opened, step);
    if (next.kind === "slow") return { state, events: drafts, slow: next.slow };
    drafts.push(...next.t.events);
    state = next.t.state;
  }
  return { state, events: drafts };
}
