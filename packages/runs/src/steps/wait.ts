import { z } from "zod";
import { StepId, sleep } from "./common.js";
import type { StepType } from "./step-type.js";

/** `wait`: pauses the run (still `running`) for `seconds`. Repeated in full if its worker dies. */
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
    await sleep(step.seconds * 1000, ctx.signal);
    return { kind: "completed" };
  },
};
