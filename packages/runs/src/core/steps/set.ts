import { SetStep } from "../../domain/steps.js";
import type { StepType } from "./step-type.js";

export { SetStep };

/** The `set` step type. */
export const setStep: StepType<SetStep> = {
  type: "set",
  schema: SetStep,
  effect: "pure",
  async execute(step) {
    return { kind: "completed", vars: { ...step.vars } };
  },
};
