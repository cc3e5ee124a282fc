import { z } from "zod";
import { StepId, sleep } from "./common.js";
import type { StepType } from "./step-type.js";

/**
 * `wait`: pauses the run (still `running`) for `seconds`, counted from when the step first started, so a
 * run re-claimed after its worker died only waits for what is left.
 */
export const WaitStep = z
  .object({
    id: StepId,
    type: z.literal("wait"),
    seconds: z.number().min(0).max(3600),
  })
  .meta({ id: "WaitStep" });
/** A `wait` step. */
export type WaitStep = z.infer<typeof WaitStep>;

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
