import { z } from "zod";
import { ACTION_NAMES, RISK_LEVELS } from "./risk.js";

/*
 * The computer-use lane as the API shows it: a session holding an instruction, proposed actions with a
 * risk level, confirmations, executions and their evidence. Pure schemas and the action state machine.
 */

/** The largest screenshot a preview accepts (decoded bytes). */
export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;

/** Planners: the local deterministic grammar, or an OpenAI-compatible chat endpoint with tool calling. */
export const PLANNER_KINDS = ["local", "openai"] as const;
/** A planner kind. */
export type PlannerKind = (typeof PLANNER_KINDS)[number];

/** The body of `POST /api/computer-use/sessions`. */
export const CuSessionInput = z
  .object({
    instruction: z.string().min(1).max(2000),
    session_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "An active recording session to act in; else the lane opens its own page" }),
    planner: z.enum(PLANNER_KINDS).default("local"),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "CuSessionInput" });
/** The body of `POST /api/computer-use/sessions`. */
export type CuSessionInput = z.input<typeof CuSessionInput>;

/** A computer-use session. */
export const CuSession = z
  .object({
    id: z.string(),
    instruction: z.string(),
    session_id: z.string().nullable(),
    planner: z.enum(PLANNER_KINDS),
    metadata: z.record(z.string(), z.unknown()),
    action_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "CuSession" });
/** A computer-use session. */
export type CuSession = z.infer<typeof CuSession>;

/** The body of `POST …/{id}/preview`: optionally the screenshot the caller sees. */
export const CuPreviewInput = z
  .object({
    screenshot_base64: z
      .string()
      .max(12 * 1024 * 1024)
      .optional()
      .meta({
        description: "A data: URL (data:image/png;base64,…) or bare base64 with screenshot_mime_type",
      }),
    screenshot_mime_type: z.string().max(100).optional(),
  })
  .meta({ id: "CuPreviewInput" });
/** The body of a preview. */
export type CuPreviewInput = z.infer<typeof CuPreviewInput>;

/** Action states; the allowed moves are {@link ACTION_TRANSITIONS}. */
export const ACTION_STATUSES = [
  "proposed",
  "approved",
  "rejected",
  "executing",
  "executed",
  "failed",
] as const;
/** An action state. */
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/** The action state machine as data. */
export const ACTION_TRANSITIONS = {
  proposed: ["approved", "rejected", "executing"],
  approved: ["executing"],
  rejected: [],
  executing: ["executed", "failed"],
  executed: [],
  failed: [],
} as const satisfies Record<ActionStatus, readonly ActionStatus[]>;

/** Whether an action may move from `from` to `to`. */
export function canMoveAction(from: ActionStatus, to: ActionStatus): boolean {
  return (ACTION_TRANSITIONS[from] as readonly ActionStatus[]).includes(to);
}

/**
 * The states the table lets an action leave for `to`: the engine's compare-and-set writes take their
 * `WHERE status IN (…)` from here, so the table is what the engine does.
 */
export function actionStatesInto(to: ActionStatus): ActionStatus[] {
  return ACTION_STATUSES.filter((from) => canMoveAction(from, to));
}

/** A proposed action. */
export const CuAction = z
  .object({
    action_id: z.string(),
    name: z.enum(ACTION_NAMES),
    args: z.record(z.string(), z.unknown()),
    rationale: z.string(),
    risk_level: z.enum(RISK_LEVELS),
    require_confirmation: z.boolean(),
    action_digest: z.string().meta({ description: "sha256 of the session, action and page URL" }),
    status: z.enum(ACTION_STATUSES),
    provider_domain: z.string().nullable(),
    confirmation: z
      .object({ approved: z.boolean(), reason: z.string().nullable(), at: z.string() })
      .nullable(),
    created_at: z.string(),
  })
  .meta({ id: "CuAction" });
/** A proposed action. */
export type CuAction = z.infer<typeof CuAction>;

/** The body of `POST …/{id}/confirm/{action_id}`. */
export const CuConfirmInput = z
  .object({ approved: z.boolean(), confirmation_reason: z.string().max(1000).optional() })
  .meta({ id: "CuConfirmInput" });
/** The body of a confirmation. */
export type CuConfirmInput = z.infer<typeof CuConfirmInput>;

/** One piece of evidence: a screenshot file, or the page's URL and accessibility summary. */
export const CuEvidence = z
  .object({
    id: z.string(),
    action_id: z.string().nullable(),
    kind: z.enum(["preview_screenshot", "before_screenshot", "after_screenshot"]),
    content_type: z.string(),
    bytes: z.number().int(),
    sha256: z.string(),
    url: z.string().nullable(),
    summary: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "CuEvidence" });
/** One piece of evidence. */
export type CuEvidence = z.infer<typeof CuEvidence>;

/** What an execution came to. */
export const CuExecution = z
  .object({
    action: CuAction,
    ok: z.boolean(),
    error: z.string().nullable(),
    url_before: z.string().nullable(),
    url_after: z.string().nullable(),
    accessibility_summary: z.string().nullable(),
    evidence: z.array(CuEvidence),
    started_at: z.string(),
    finished_at: z.string(),
  })
  .meta({ id: "CuExecution" });
/** What an execution came to. */
export type CuExecution = z.infer<typeof CuExecution>;
