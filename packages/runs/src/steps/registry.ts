import { z } from "zod";
import { ApprovalGateStep, approvalGateStep } from "./approval-gate.js";
import { AssertStep, assertStep } from "./assert.js";
import { HttpStep, httpStep } from "./http.js";
import { InputGateStep, inputGateStep } from "./input-gate.js";
import { OtpGateStep, otpGateStep } from "./otp-gate.js";
import { SetStep, setStep } from "./set.js";
import type { StepType } from "./step-type.js";
import { WaitStep, waitStep } from "./wait.js";

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

/** Any step of a flow, discriminated by `type`. */
export const Step = z
  .discriminatedUnion("type", [
    HttpStep,
    SetStep,
    WaitStep,
    AssertStep,
    OtpGateStep,
    ApprovalGateStep,
    InputGateStep,
  ])
  .meta({ id: "Step" });
/** Any step of a flow. */
export type Step = z.infer<typeof Step>;

/** The type module that executes `step`. */
export function stepTypeOf(step: Step): StepType<Step> {
  return STEP_TYPES[step.type] as unknown as StepType<Step>;
}
