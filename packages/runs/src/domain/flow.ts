import { z } from "zod";
import { Step } from "./steps.js";

const Steps = z
  .array(Step)
  .min(1)
  .max(200)
  .superRefine((steps, ctx) => {
    const seen = new Set<string>();
    steps.forEach((step, i) => {
      if (seen.has(step.id)) {
        ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate step id ${step.id}` });
      }
      seen.add(step.id);
    });
  });

/** The body of `POST /api/flows`. */
export const FlowInput = z
  .object({ name: z.string().min(1).max(200), steps: Steps })
  .meta({ id: "FlowInput" });
/** The body of `POST /api/flows`. */
export type FlowInput = z.input<typeof FlowInput>;

/** The body of `PATCH /api/flows/{flow_id}`: bumps the version; `expected_version` guards stale edits. */
export const FlowPatch = z
  .object({
    name: z.string().min(1).max(200).optional(),
    steps: Steps.optional(),
    expected_version: z.number().int().min(1).optional(),
  })
  .meta({ id: "FlowPatch" });
/** The body of `PATCH /api/flows/{flow_id}`. */
export type FlowPatch = z.input<typeof FlowPatch>;

/** A stored flow at its latest version. */
export const Flow = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.number().int(),
    steps: z.array(Step),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Flow" });
/** A stored flow. */
export type Flow = z.infer<typeof Flow>;
