import { compileUserRegex } from "@vetted/store";
import { AssertStep } from "../../domain/steps.js";
import type { StepType } from "./step-type.js";

export { AssertStep };

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
