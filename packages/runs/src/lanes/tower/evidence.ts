import { and, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { InvalidInputError } from "../../kernel/errors.js";
import { evidence } from "../../store/schema.js";
import { towerReplays } from "../../store/tower-schema.js";
import { getTowerDraft } from "./drafts.js";
import type { TowerResources } from "./resources.js";
import { DraftStepNotFoundError } from "./tower-errors.js";

/** One step's evidence as the tower shows it. */
export const TowerEvidence = z
  .object({
    evidence_id: z.string(),
    run_id: z.string(),
    step_id: z.string(),
    step_type: z.string(),
    ok: z.boolean(),
    outcome: z.string(),
    detail: z.record(z.string(), z.unknown()),
    started_at: z.string(),
    duration_ms: z.number().int(),
    matched_selector: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "The selector that found the element" }),
    matched_index: z
      .number()
      .int()
      .nullable()
      .meta({ description: "Its position among the step's selectors (0 = first)" }),
    fallback_trail: z
      .array(z.record(z.string(), z.unknown()))
      .meta({ description: "Each selector tried, in order, and what it found" }),
    before_screenshot_url: z.string().nullable(),
    after_screenshot_url: z.string().nullable(),
  })
  .meta({ id: "TowerEvidence" });
/** One step's evidence as the tower shows it. */
export type TowerEvidence = z.infer<typeof TowerEvidence>;

type EvidenceRow = typeof evidence.$inferSelect;

function shotUrl(row: EvidenceRow, name: string): string | null {
  return row.screenshots[name] === undefined
    ? null
    : `/api/runs/${row.runId}/evidence/${row.id}/screenshots/${name}`;
}

function toTowerEvidence(row: EvidenceRow): TowerEvidence {
  const trail = Array.isArray(row.detail.selector_trail)
    ? (row.detail.selector_trail as Record<string, unknown>[])
    : [];
  const index = typeof row.detail.selector_index === "number" ? row.detail.selector_index : null;
  const matched = trail.find((t) => t.result === "matched") ?? null;
  return {
    evidence_id: row.id,
    run_id: row.runId,
    step_id: row.stepId,
    step_type: row.stepType,
    ok: row.outcome === "completed",
    outcome: row.outcome,
    detail: row.detail,
    started_at: new Date(row.startedAt).toISOString(),
    duration_ms: row.durationMs,
    matched_selector: matched,
    matched_index: index,
    fallback_trail: trail,
    before_screenshot_url: shotUrl(row, "before"),
    after_screenshot_url: shotUrl(row, "after"),
  };
}

async function replayRunIds(r: TowerResources, sessionId: string): Promise<string[]> {
  const rows = await r.db
    .select({ runId: towerReplays.runId })
    .from(towerReplays)
    .where(eq(towerReplays.sessionId, sessionId));
  return rows.map((x) => x.runId);
}

/**
 * The step's latest evidence from the tower's replays of the latest flow, or null before any replay ran it.
 * @throws REQUEST_INVALID (no step_id), SESSION_NOT_FOUND, STEP_NOT_FOUND (not a step of the flow)
 */
export async function stepEvidence(r: TowerResources, stepId: string | undefined, sessionId?: string) {
  if (stepId === undefined || stepId === "")
    throw new InvalidInputError("REQUEST_INVALID", "step_id is required: GET latest-flow lists the steps.", {
      field: "step_id",
    });
  const draft = await getTowerDraft(r, sessionId);
  if (!draft.steps.some((s) => s.id === stepId))
    throw new DraftStepNotFoundError(draft.session_id, `The latest flow has no step ${stepId}.`);
  const runIds = await replayRunIds(r, draft.session_id);
  const [row] =
    runIds.length === 0
      ? []
      : await r.db
          .select()
          .from(evidence)
          .where(and(inArray(evidence.runId, runIds), eq(evidence.stepId, stepId)))
          .orderBy(desc(evidence.startedAt), desc(evidence.seq))
          .limit(1);
  return {
    session_id: draft.session_id,
    step_id: stepId,
    evidence: row === undefined ? null : toTowerEvidence(row),
  };
}

/** The evidence of the tower's replays of the latest flow, newest first. @throws REQUEST_INVALID, SESSION_NOT_FOUND */
export async function evidenceTimeline(r: TowerResources, sessionId: string | undefined, limit = 50) {
  const draft = await getTowerDraft(r, sessionId);
  const runIds = await replayRunIds(r, draft.session_id);
  const rows =
    runIds.length === 0
      ? []
      : await r.db
          .select()
          .from(evidence)
          .where(inArray(evidence.runId, runIds))
          .orderBy(desc(evidence.startedAt), desc(evidence.seq))
          .limit(Math.max(1, Math.min(limit, 200)));
  return { session_id: draft.session_id, items: rows.map(toTowerEvidence) };
}
