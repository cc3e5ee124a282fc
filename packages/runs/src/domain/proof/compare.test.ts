import { describe, expect, it } from "vitest";
import type { Step } from "../steps.js";
import { compareRuns } from "./compare.js";
import type { FactEvent, RunFacts } from "./facts.js";

const checks: Step[] = [
  { id: "open", type: "set", vars: {} },
  { id: "lcp", type: "assert", value: "${vars.lcp_ok}", equals: true },
  { id: "a11y", type: "assert", value: "${vars.a11y_ok}", equals: true },
];

const finished = (stepId: string, outcome: "completed" | "failed"): FactEvent => ({
  type: "step_finished",
  data: { step_id: stepId, outcome, duration_ms: 10 },
  at: 0,
});

function run(id: string, events: FactEvent[], over: Partial<RunFacts> = {}): RunFacts {
  return {
    id,
    templateId: "tpl_1",
    status: "failed",
    reason: "assertion_failed",
    error: null,
    steps: checks,
    createdAt: 1000,
    finishedAt: 2000,
    events,
    evidence: [],
    ...over,
  };
}

describe("compareRuns", () => {
  it("names the checks that newly fail and those that got fixed", () => {
    const left = run("run_l", [
      finished("open", "completed"),
      finished("lcp", "completed"),
      finished("a11y", "failed"),
    ]);
    const right = run("run_r", [
      finished("open", "completed"),
      finished("lcp", "failed"),
      finished("a11y", "completed"),
    ]);
    const c = compareRuns(left, right);
    expect(c.checks).toEqual({
      added: [],
      removed: [],
      failing_on_both: [],
      newly_failing: ["lcp"],
      newly_fixed: ["a11y"],
    });
    expect(c.summary).toContain("Newly failing: lcp.");
    expect(c.summary).toContain("Newly fixed: a11y.");
    expect(c.summary).not.toContain("unchanged");
  });

  it("does not call a check fixed when the right run never reached it, nor unchanged runs changed", () => {
    const left = run("run_l", [
      finished("open", "completed"),
      finished("lcp", "completed"),
      finished("a11y", "failed"),
    ]);
    const stopped = run("run_r", [finished("open", "failed")], { reason: "step_failed" });
    expect(compareRuns(left, stopped).checks).toMatchObject({ newly_failing: [], newly_fixed: [] });
    const same = compareRuns(left, run("run_r", left.events.slice()));
    expect(same.checks).toMatchObject({ failing_on_both: ["a11y"], newly_failing: [], newly_fixed: [] });
    const clean = run("run_c", [finished("lcp", "completed"), finished("a11y", "completed")], {
      status: "success",
    });
    expect(compareRuns(clean, { ...clean, id: "run_d" }).summary).toContain("The checks are unchanged.");
  });
});
