import type { Step } from "../steps.js";
import { durationOf, executionsOf, gateCounts, type RunFacts, stepDurations } from "./facts.js";
import type { RunComparison } from "./schemas.js";

/** A step is a check when it asserts: an `assert` step, or an `http` step with an `expect`. */
export function isCheck(step: Step): boolean {
  return step.type === "assert" || (step.type === "http" && step.expect !== undefined);
}

/** How the run's gates came out: none opened, all passed, one expired, one rejected, or one still open. */
export function gateOutcomeOf(run: RunFacts): RunComparison["left"]["gate_outcome"] {
  const g = gateCounts(run);
  if (g.opened === 0) return "none";
  if (g.expired > 0) return "expired";
  if (run.events.some((e) => e.type === "gate_resolved" && e.data.approved === false)) return "rejected";
  return g.passed >= g.opened ? "passed" : "open";
}

function sideOf(run: RunFacts): RunComparison["left"] {
  const { opened, passed, expired } = gateCounts(run);
  return {
    run_id: run.id,
    status: run.status,
    reason: run.reason,
    gates: { opened, passed, expired },
    gate_outcome: gateOutcomeOf(run),
    duration_ms: durationOf(run),
  };
}

function failingChecks(run: RunFacts): Set<string> {
  const checks = new Set(run.steps.filter(isCheck).map((s) => s.id));
  return new Set(
    executionsOf(run)
      .filter((x) => x.outcome === "failed" && checks.has(x.stepId))
      .map((x) => x.stepId),
  );
}

/** The checks a run executed that never failed in it. */
function passingChecks(run: RunFacts, failing: ReadonlySet<string>): Set<string> {
  const checks = new Set(run.steps.filter(isCheck).map((s) => s.id));
  return new Set(
    executionsOf(run)
      .filter((x) => x.outcome === "completed" && checks.has(x.stepId) && !failing.has(x.stepId))
      .map((x) => x.stepId),
  );
}

/** The step ids of both runs in flow order: the left run's, then the right's new ones. */
function stepOrder(left: RunFacts, right: RunFacts): string[] {
  const ids = [...left.steps.map((s) => s.id)];
  for (const s of right.steps) if (!ids.includes(s.id)) ids.push(s.id);
  return ids;
}

function summarize(c: Omit<RunComparison, "summary">): string {
  const parts = [
    `Left run ${c.left.run_id} is ${c.left.status}, right run ${c.right.run_id} is ${c.right.status}.`,
  ];
  const slower = c.steps
    .filter((s) => s.delta_ms !== null && s.delta_ms > 0)
    .sort((a, b) => (b.delta_ms ?? 0) - (a.delta_ms ?? 0))[0];
  const faster = c.steps
    .filter((s) => s.delta_ms !== null && s.delta_ms < 0)
    .sort((a, b) => (a.delta_ms ?? 0) - (b.delta_ms ?? 0))[0];
  if (slower !== undefined)
    parts.push(
      `The right run was slowest against the left at step ${slower.step_id} (+${slower.delta_ms} ms).`,
    );
  if (faster !== undefined) parts.push(`It gained most at step ${faster.step_id} (${faster.delta_ms} ms).`);
  if (c.left.gate_outcome !== c.right.gate_outcome) {
    parts.push(`Gates went ${c.left.gate_outcome} on the left and ${c.right.gate_outcome} on the right.`);
  }
  const { added, removed, failing_on_both, newly_failing, newly_fixed } = c.checks;
  if (newly_failing.length > 0) parts.push(`Newly failing: ${newly_failing.join(", ")}.`);
  if (newly_fixed.length > 0) parts.push(`Newly fixed: ${newly_fixed.join(", ")}.`);
  if (added.length > 0) parts.push(`Checks added: ${added.join(", ")}.`);
  if (removed.length > 0) parts.push(`Checks removed: ${removed.join(", ")}.`);
  if (failing_on_both.length > 0) parts.push(`Failing on both: ${failing_on_both.join(", ")}.`);
  const changed = [added, removed, failing_on_both, newly_failing, newly_fixed].some((l) => l.length > 0);
  if (!changed) parts.push("The checks are unchanged.");
  return parts.join(" ");
}

/**
 * Compares two runs: status and gate outcome of each, per-step duration deltas (right minus left, null
 * where a side did not run the step), checks added, removed, failing on both, newly failing (failed on the
 * right, not on the left) and newly fixed (failed on the left, ran without failing on the right), and a
 * one-paragraph summary that names them.
 */
export function compareRuns(left: RunFacts, right: RunFacts): RunComparison {
  const l = stepDurations(left);
  const r = stepDurations(right);
  const order = stepOrder(left, right);
  const steps = order
    .filter((id) => l.has(id) || r.has(id))
    .map((id) => {
      const a = l.get(id) ?? null;
      const b = r.get(id) ?? null;
      return { step_id: id, left_ms: a, right_ms: b, delta_ms: a === null || b === null ? null : b - a };
    });
  const leftChecks = new Set(left.steps.filter(isCheck).map((s) => s.id));
  const rightChecks = new Set(right.steps.filter(isCheck).map((s) => s.id));
  const leftFailing = failingChecks(left);
  const rightFailing = failingChecks(right);
  const rightPassing = passingChecks(right, rightFailing);
  const base = {
    left: sideOf(left),
    right: sideOf(right),
    steps,
    checks: {
      added: [...rightChecks].filter((id) => !leftChecks.has(id)),
      removed: [...leftChecks].filter((id) => !rightChecks.has(id)),
      failing_on_both: [...leftFailing].filter((id) => rightFailing.has(id)),
      newly_failing: order.filter((id) => rightFailing.has(id) && !leftFailing.has(id)),
      newly_fixed: order.filter((id) => leftFailing.has(id) && rightPassing.has(id)),
    },
  };
  return { ...base, summary: summarize(base) };
}
