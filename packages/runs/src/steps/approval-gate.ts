import { z } from "zod";
import { GateTimeout, Prompt, StepId } from "./common.js";
import type { StepType } from "./step-type.js";

/** `approval_gate`: pauses as `waiting_user` until a person approves (or rejects: the run is cancelled). */
export const ApprovalGateStep = z
  .object({
    id: StepId,
    type: z.literal("approval_gate"),
    prompt: Prompt.default("Approve to continue"),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "ApprovalGateStep" });
/** An `approval_gate` step. */
export type ApprovalGateStep = z.infer<typeof ApprovalGateStep>;

/** The `approval_gate` step type. */
export const approvalGateStep: StepType<ApprovalGateStep> = {
  type: "approval_gate",
  schema: ApprovalGateStep,
  effect: "gate",
  async execute(step) {
    return {
      kind: "gate",
      gate: { kind: "approval", prompt: step.prompt, timeout_seconds: step.timeout_seconds },
    };
  },
};
