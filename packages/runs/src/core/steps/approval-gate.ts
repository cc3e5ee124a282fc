import { ApprovalGateStep } from "../../domain/steps.js";
import type { StepType } from "./step-type.js";

export { ApprovalGateStep };

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
