import { z } from "zod";
import type { DraftStep } from "../../domain/flow-draft.js";
import { getTowerDraft } from "./drafts.js";
import type { TowerResources } from "./resources.js";

/** One step of the latest flow, as the tower lists it. */
export const LatestFlowStep = z.object({
  step_id: z.string(),
  action: z.string(),
  url: z.string().nullable().meta({ description: "A navigate step's URL" }),
  value_ref: z.string().nullable().meta({
    description: "What a type step types (secrets as ${secrets.name}) or a select step's option",
  }),
  selector: z
    .record(z.string(), z.unknown())
    .nullable()
    .meta({ description: "The first selector candidate" }),
});

/** `GET /api/command-tower/latest-flow`. */
export const LatestFlow = z
  .object({
    session_id: z.string(),
    start_url: z.string(),
    generated_at: z.string(),
    source_event_count: z.number().int(),
    step_count: z.number().int(),
    draft_version: z.number().int(),
    steps: z.array(LatestFlowStep),
  })
  .meta({ id: "LatestFlow" });
/** The latest flow. */
export type LatestFlow = z.infer<typeof LatestFlow>;

function toStep(s: DraftStep): z.infer<typeof LatestFlowStep> {
  return {
    step_id: s.id,
    action: s.type,
    url: s.type === "navigate" ? s.url : null,
    value_ref: s.type === "type" ? s.value : s.type === "select" ? s.option : null,
    selector: s.type === "navigate" ? null : (s.target.selectors[0] ?? null),
  };
}

/** The latest (or named) finished session's flow, as edited. @throws REQUEST_INVALID, SESSION_NOT_FOUND */
export async function latestFlow(r: TowerResources, sessionId?: string): Promise<LatestFlow> {
  const d = await getTowerDraft(r, sessionId);
  return {
    session_id: d.session_id,
    start_url: d.start_url,
    generated_at: d.generated_at,
    source_event_count: d.event_count,
    step_count: d.steps.length,
    draft_version: d.version,
    steps: d.steps.map(toStep),
  };
}
