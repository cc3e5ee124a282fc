import { InputGateStep } from "../../domain/steps.js";
import type { StepType } from "./step-type.js";

export { InputGateStep };

/** The `input_gate` step type. */
export const inputGateStep: StepType<InputGateStep> = {
  type: "input_gate",
  schema: InputGateStep,
  effect: "gate",
  async execute(step) {
    return {
      kind: "gate",
      gate: {
        kind: "input",
        prompt: step.prompt,
        input_schema: step.input_schema,
        timeout_seconds: step.timeout_seconds,
      },
    };
  },
};
