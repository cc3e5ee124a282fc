import { z } from "zod";
import { GateTimeout, Prompt, StepId } from "./common.js";
import type { StepType } from "./step-type.js";

/** `input_gate`: pauses as `waiting_user` until a person types text (`${gate.input_text}`). */
export const InputGateStep = z
  .object({
    id: StepId,
    type: z.literal("input_gate"),
    prompt: Prompt,
    input_schema: z
      .object({
        pattern: z.string().min(1).optional(),
        min_length: z.number().int().min(0).optional(),
        max_length: z.number().int().min(1).max(10_000).optional(),
      })
      .optional(),
    timeout_seconds: GateTimeout,
  })
  .meta({ id: "InputGateStep" });
/** An `input_gate` step. */
export type InputGateStep = z.infer<typeof InputGateStep>;

/** The `input_gate` step type. */
export const inputGateStep: StepType<InputGateStep> = {
  type: "input_gate",
  schema: InputGateStep,
  effect: "gate",
  async execute(step) {
    return {
      kind: "gate",
      gate: {
        kind: "input",
        prompt: step.prompt,
        input_schema: step.input_schema,
        timeout_seconds: step.timeout_seconds,
      },
    };
  },
};
