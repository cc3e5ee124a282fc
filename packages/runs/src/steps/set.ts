import { z } from "zod";
import { StepId } from "./common.js";
import type { StepType } from "./step-type.js";

/** `set`: assigns variables (values may reference params, vars, gate values). */
export const SetStep = z
  .object({
    id: StepId,
    type: z.literal("set"),
    vars: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.unknown()),
  })
  .meta({ id: "SetStep" });
/** A `set` step. */
export type SetStep = z.infer<typeof SetStep>;

/** The `set` step type. */
export const setStep: StepType<SetStep> = {
  type: "set",
  schema: SetStep,
  effect: "pure",
  async execute(step) {
    return { kind: "completed", vars: { ...step.vars } };
  },
};
