import { OtpGateStep } from "../../domain/steps.js";
import type { StepType } from "./step-type.js";

export { OtpGateStep };

/** The `otp_gate` step type. */
export const otpGateStep: StepType<OtpGateStep> = {
  type: "otp_gate",
  schema: OtpGateStep,
  effect: "gate",
  async execute(step) {
    return {
      kind: "gate",
      gate: { kind: "otp", prompt: step.prompt, timeout_seconds: step.timeout_seconds },
    };
  },
};
