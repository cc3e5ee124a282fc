import { z } from "zod";
import { Selector } from "./browser-steps.js";
import type { DraftStep } from "./flow-draft.js";
import type { RecordedEvent } from "./recording.js";

/*
 * The command tower's draft edits, as data: reorder, delete, change a step's selector or value. Pure (no
 * I/O, no clock): the same steps and edits always give the same result.
 */

const StepRef = z.string().min(1).max(200);

/** One edit of the latest flow's draft. */
export const TowerDraftEdit = z.discriminatedUnion("op", [
  z
    .object({ op: z.literal("move"), step_id: StepRef, to_index: z.number().int().min(0) })
    .meta({ description: "Moves the step to position to_index (0-based, in the draft after the move)" }),
  z.object({ op: z.literal("delete"), step_id: StepRef }).meta({ description: "Removes the step" }),
  z
    .object({ op: z.literal("set_selectors"), step_id: StepRef, selectors: z.array(Selector).min(1).max(10) })
    .meta({ description: "Replaces a click, type or select step's selector candidates (tried in order)" }),
  z
    .object({ op: z.literal("set_value"), step_id: StepRef, value: z.string().max(10_000) })
    .meta({ description: "Changes a type step's value, a select step's option or a navigate step's url" }),
]);
/** One edit of the latest flow's draft. */
export type TowerDraftEdit = z.infer<typeof TowerDraftEdit>;

/** `PATCH /api/command-tower/latest-flow-draft`. */
export const TowerDraftPatch = z
  .object({
    expected_version: z.number().int().min(0).meta({
      description: "The draft's version as read (GET latest-flow-draft); a stale one → 409 VERSION_CONFLICT",
    }),
    edits: z.array(TowerDraftEdit).min(1).max(100),
  })
  .strict()
  .meta({ id: "TowerDraftPatch" });
/** The body of a draft PATCH. */
export type TowerDraftPatch = z.infer<typeof TowerDraftPatch>;

/** The outcome of applying edits: the new steps, or why an edit cannot apply. */
export type EditResult =
  | { ok: true; steps: DraftStep[] }
  | { ok: false; reason: "step_not_found" | "invalid"; message: string };

function applyOne(steps: DraftStep[], edit: TowerDraftEdit): EditResult {
  const at = steps.findIndex((s) => s.id === edit.step_id);
  const step = steps[at];
  if (step === undefined)
    return { ok: false, reason: "step_not_found", message: `The draft has no step ${edit.step_id}.` };
  const rest = steps.filter((_, i) => i !== at);
  switch (edit.op) {
    case "delete":
      if (rest.length === 0)
        return { ok: false, reason: "invalid", message: "A draft keeps at least one step." };
      return { ok: true, steps: rest };
    case "move":
      if (edit.to_index >= steps.length)
        return { ok: false, reason: "invalid", message: `to_index must be below ${steps.length}.` };
      return { ok: true, steps: [...rest.slice(0, edit.to_index), step, ...rest.slice(edit.to_index)] };
    case "set_selectors":
      if (step.type === "navigate")
        return {
          ok: false,
          reason: "invalid",
          message: `Step ${step.id} is a navigate step: it has no selector.`,
        };
      return {
        ok: true,
        steps: steps.map((s, i) => (i === at ? { ...step, target: { selectors: edit.selectors } } : s)),
      };
    case "set_value":
      return { ok: true, steps: steps.map((s, i) => (i === at ? withValue(step, edit.value) : s)) };
  }
}

function withValue(step: DraftStep, value: string): DraftStep {
  switch (step.type) {
    case "navigate":
      return { ...step, url: value };
    case "type":
      return { ...step, value };
    case "select":
      return { ...step, option: value };
    case "click":
      return step;
  }
}

/** Applies edits in order; all or nothing. */
export function applyDraftEdits(steps: readonly DraftStep[], edits: readonly TowerDraftEdit[]): EditResult {
  let current = [...steps];
  for (const edit of edits) {
    if (edit.op === "set_value" && current.find((s) => s.id === edit.step_id)?.type === "click")
      return {
        ok: false,
        reason: "invalid",
        message: `Step ${edit.step_id} is a click step: it has no value.`,
      };
    const next = applyOne(current, edit);
    if (!next.ok) return next;
    current = next.steps;
  }
  return { ok: true, steps: current };
}

/**
 * The page each draft step acted on: the URL of the recorded event that made the step (a replay from a step
 * opens it first). Steps the draft was given no event for (none) are absent.
 */
export function stepPageUrls(
  events: readonly RecordedEvent[],
  build: (events: readonly RecordedEvent[]) => { steps: readonly { id: string }[] },
): Record<string, string> {
  const urls: Record<string, string> = {};
  let known = 0;
  for (let i = 1; i <= events.length; i++) {
    const { steps } = build(events.slice(0, i));
    const event = events[i - 1];
    for (const step of steps.slice(known)) if (event !== undefined) urls[step.id] = event.url;
    known = steps.length;
  }
  return urls;
}
