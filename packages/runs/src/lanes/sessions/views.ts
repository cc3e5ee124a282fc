import type { FlowDraft, Session } from "../../domain/session.js";
import type { sessions } from "../../store/lanes-schema.js";

/** A stored session row. */
export type SessionRow = typeof sessions.$inferSelect;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A session row as the API shows it (no file paths, no storage state). */
export function toSession(row: SessionRow, liveEventCount?: number): Session {
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    start_url: row.startUrl,
    current_url: row.currentUrl,
    storage_state_from: row.storageStateFrom,
    event_count: liveEventCount ?? row.eventCount,
    artifacts_index: row.artifacts.map(({ path: _path, ...a }) => a),
    error: row.error,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    finished_at: row.finishedAt === null ? null : iso(row.finishedAt),
  };
}

/** The draft view of a session. */
export function toDraft(
  sessionId: string,
  body: Omit<FlowDraft, "session_id" | "final">,
  final: boolean,
): FlowDraft {
  return { session_id: sessionId, ...body, final };
}
