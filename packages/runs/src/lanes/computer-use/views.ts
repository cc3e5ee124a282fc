import type { CuAction, CuSession } from "../../domain/computer-use.js";
import type { cuActions, cuSessions } from "../../store/lanes-schema.js";

/** A stored computer-use session row. */
export type CuSessionRow = typeof cuSessions.$inferSelect;
/** A stored action row. */
export type ActionRow = typeof cuActions.$inferSelect;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A computer-use session as the API shows it. */
export function toCuSession(row: CuSessionRow): CuSession {
  return {
    id: row.id,
    instruction: row.instruction,
    session_id: row.sessionId,
    planner: row.planner,
    metadata: row.metadata,
    action_count: row.actionCount,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** An action as the API shows it. */
export function toAction(row: ActionRow): CuAction {
  return {
    action_id: row.id,
    name: row.name,
    args: row.args,
    rationale: row.rationale,
    risk_level: row.riskLevel,
    require_confirmation: row.requireConfirmation,
    action_digest: row.actionDigest,
    status: row.status,
    provider_domain: row.providerDomain,
    confirmation:
      row.confirmation === null
        ? null
        : {
            approved: row.confirmation.approved,
            reason: row.confirmation.reason,
            at: iso(row.confirmation.at),
          },
    created_at: iso(row.createdAt),
  };
}
