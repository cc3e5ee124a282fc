import { WaitStep } from "../../domain/steps.js";
import { sleep } from "./common.js";
import type { StepType } from "./step-type.js";

export { WaitStep };

/** The `wait` step type. */
export const waitStep: StepType<WaitStep> = {
  type: "wait",
  schema: WaitStep,
  effect: "timer",
  async execute(step, ctx) {
    const left = step.seconds * 1000 - (ctx.now() - ctx.startedAt);
    if (left > 0) await sleep(left, ctx.signal);
    return { kind: "completed" };
  },
};
