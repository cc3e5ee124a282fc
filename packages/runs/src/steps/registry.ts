import { Step } from "../domain/steps.js";
import { approvalGateStep } from "./approval-gate.js";
import { assertStep } from "./assert.js";
import { httpStep } from "./http.js";
import { inputGateStep } from "./input-gate.js";
import { otpGateStep } from "./otp-gate.js";
import { setStep } from "./set.js";
import type { StepType } from "./step-type.js";

export { Step };

import { waitStep } from "./wait.js";

/**
 * The registry: every step type by its `type`. A new step type (a browser `navigate`, `click`…) is one
 * module plus one line here and one in {@link Step}; the engine, store and server need no change.
 */
export const STEP_TYPES = {
  http: httpStep,
  set: setStep,
  wait: waitStep,
  assert: assertStep,
  otp_gate: otpGateStep,
  approval_gate: approvalGateStep,
  input_gate: inputGateStep,
} as const;

/** The type module that executes `step`. */
export function stepTypeOf(step: Step): StepType<Step> {
  return STEP_TYPES[step.type] as unknown as StepType<Step>;
}
