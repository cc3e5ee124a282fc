import { z } from "zod";
import type { DraftStep } from "../../domain/flow-draft.js";
import { findTowerDraft } from "./drafts.js";
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

/** `GET /api/command-tower/latest-flow`; with no finished session yet, an empty preview. */
export const LatestFlow = z
  .object({
    session_id: z
      .string()
      .nullable()
      .meta({ description: "Null in the empty preview: no session finished yet" }),
    start_url: z.string().nullable().meta({ description: "Null in the empty preview" }),
    generated_at: z.string().nullable().meta({ description: "Null in the empty preview" }),
    source_event_count: z.number().int(),
    step_count: z.number().int(),
    draft_version: z.number().int(),
    steps: z.array(LatestFlowStep),
  })
  .meta({
    id: "LatestFlow",
    description:
      "The latest (or named) finished session's flow. Asked for the latest before any session was finished: " +
      "an empty preview (session_id, start_url and generated_at null, counts and draft_version 0, no steps).",
  });
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

/** What the latest flow is before any session has been finished. */
const EMPTY_LATEST_FLOW: LatestFlow = {
  session_id: null,
  start_url: null,
  generated_at: null,
  source_event_count: 0,
  step_count: 0,
  draft_version: 0,
  steps: [],
};

/**
 * The latest (or named) finished session's flow, as edited; the empty preview when the latest is asked for
 * and no session has been finished yet. @throws REQUEST_INVALID, SESSION_NOT_FOUND (a named session)
 */
export async function latestFlow(r: TowerResources, sessionId?: string): Promise<LatestFlow> {
  const d = await findTowerDraft(r, sessionId);
  if (d === undefined) return { ...EMPTY_LATEST_FLOW, steps: [] };
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
