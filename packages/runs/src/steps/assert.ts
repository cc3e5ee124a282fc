import { compileUserRegex } from "@vetted/store";
import { z } from "zod";
import { StepId } from "./common.js";
import type { StepType } from "./step-type.js";

/**
 * `assert`: fails the run unless `value` equals `equals` and/or matches `matches` (RE2 syntax, matched in
 * linear time; a pattern that needs backtracking is refused when the flow is saved).
 */
export const AssertStep = z
  .object({
    id: StepId,
    type: z.literal("assert"),
    value: z.unknown(),
    equals: z.unknown().optional(),
    matches: z.string().optional(),
    message: z.string().max(500).optional(),
  })
  .meta({ id: "AssertStep" });
/** An `assert` step. */
export type AssertStep = z.infer<typeof AssertStep>;

/** The `assert` step type. */
export const assertStep: StepType<AssertStep> = {
  type: "assert",
  schema: AssertStep,
  effect: "pure",
  async execute(step) {
    const equalsOk =
      !Object.hasOwn(step, "equals") || JSON.stringify(step.value) === JSON.stringify(step.equals);
    const matchesOk = step.matches === undefined || compileUserRegex(step.matches).test(String(step.value));
    if (equalsOk && matchesOk) return { kind: "completed" };
    return {
      kind: "failed",
      reason: "assertion_failed",
      message: step.message ?? `assertion ${step.id} did not hold`,
      expectation: true,
    };
  },
};
