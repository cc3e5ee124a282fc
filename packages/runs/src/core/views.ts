import type { Flow } from "../domain/flow.js";
import type { Run } from "../domain/run.js";
import type { Template } from "../domain/template.js";
import type { RunState } from "../domain/transitions.js";
import { withGuidance } from "../domain/wait-guidance.js";
import type { flows, runs, templates } from "../store/schema.js";

/** A stored run row. */
export type RunRow = typeof runs.$inferSelect;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The transition view of a run row. */
export function stateOf(row: RunRow): RunState {
  return {
    status: row.status,
    cursor: row.cursor,
    vars: row.vars,
    gate: row.gate,
    wait: row.waitContext,
    waitExpiresAt: row.waitExpiresAt,
    reason: row.reason,
    error: row.error,
    otpAttempts: row.otpAttempts,
    version: row.version,
  };
}

/**
 * A run row as the API returns it: no secrets, no one-time codes (the row never holds them in plain: vars
 * that copied one are stored as `[redacted]`, see `RunVault.protect`).
 */
export function toRun(row: RunRow): Run {
  return {
    id: row.id,
    flow_id: row.flowId,
    flow_version: row.flowVersion,
    template_id: row.templateId,
    status: row.status,
    version: row.version,
    params: row.params,
    vars: row.vars,
    current_step_id: row.steps[row.cursor]?.id ?? null,
    wait_context: row.waitContext === null ? null : withGuidance(row.waitContext, row.steps),
    reason: row.reason,
    error: row.error,
    otp_attempts: row.otpAttempts,
    session_id: row.sessionId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    finished_at: row.finishedAt === null ? null : iso(row.finishedAt),
  };
}

/** A flow row as the API returns it. */
export function toFlow(row: typeof flows.$inferSelect): Flow {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    steps: row.steps,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** A template row as the API returns it. */
export function toTemplate(row: typeof templates.$inferSelect): Template {
  return {
    id: row.id,
    name: row.name,
    flow_id: row.flowId,
    flow_version: row.flowVersion,
    params_schema: row.paramsSchema,
    defaults: row.defaults,
    policies: row.policies,
    version: row.version,
    template_family_id: row.familyId === "" ? row.id : row.familyId,
    parent_template_id: row.parentTemplateId,
    family_version: row.familyVersion,
    status: row.status,
    recommended: row.recommended,
    change_note: row.changeNote,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
