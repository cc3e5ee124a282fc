import { z } from "zod";
import { GateTimeout, Prompt, StepId } from "./common.js";
import type { StepType } from "./step-type.js";

/** `otp_gate`: pauses as `waiting_otp` until a one-time code arrives (`${gate.otp_code}`). */
export const OtpGateStep = z
  .object({
    id: StepId,
    type: z.literal("otp_gate"),
    prompt: Prompt.default("Enter the one-time code"),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "OtpGateStep" });
/** An `otp_gate` step. */
export type OtpGateStep = z.infer<typeof OtpGateStep>;

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
