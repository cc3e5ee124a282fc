import { and, desc, eq } from "drizzle-orm";
import type { DraftStep } from "../../domain/flow-draft.js";
import { applyDraftEdits, TowerDraftPatch } from "../../domain/tower-draft.js";
import { InvalidInputError, SessionNotFoundError, VersionConflictError } from "../../kernel/errors.js";
import { sessions } from "../../store/lanes-schema.js";
import { towerDrafts } from "../../store/tower-schema.js";
import type { TowerResources } from "./resources.js";
import { DraftStepNotFoundError, SessionIdInvalidError } from "./tower-errors.js";

/** What a session id query may say: omitted, `null` or `none` mean the latest finished session. */
const LATEST = new Set(["null", "none"]);
const SESSION_ID = /^ss_[A-Za-z0-9_-]{1,100}$/;

/** The tower's view of a finished session's flow: its draft as edited, with its version. */
export interface TowerDraft {
  session_id: string;
  name: string;
  start_url: string;
  version: number;
  steps: DraftStep[];
  secrets: string[];
  event_count: number;
  generated_at: string;
  updated_at: string;
}

/**
 * The finished session a tower query names: omitted, `null` or `none` → the latest finished one, or
 * undefined when none has been finished yet.
 * @throws REQUEST_INVALID (empty or malformed id), SESSION_NOT_FOUND (a named session unknown or unfinished)
 */
async function findSession(r: TowerResources, sessionId: string | undefined) {
  if (sessionId === "")
    throw new SessionIdInvalidError(
      "session_id is empty: omit it (or say none) for the latest finished session.",
    );
  const latest = sessionId === undefined || LATEST.has(sessionId);
  if (!latest && !SESSION_ID.test(sessionId))
    throw new SessionIdInvalidError(`session_id ${JSON.stringify(sessionId)} is not a session id (ss_…).`);
  const [row] = await r.db
    .select()
    .from(sessions)
    .where(
      latest
        ? eq(sessions.status, "finished")
        : and(eq(sessions.id, sessionId), eq(sessions.status, "finished")),
    )
    .orderBy(desc(sessions.finishedAt), desc(sessions.id))
    .limit(1);
  if (row !== undefined && row.draft !== null) return { ...row, draft: row.draft };
  if (latest) return undefined;
  throw new SessionNotFoundError(sessionId, "that is finished");
}

/**
 * The finished session a tower query names: omitted, `null` or `none` → the latest finished one.
 * @throws REQUEST_INVALID (empty or malformed id), SESSION_NOT_FOUND (unknown, not finished, or none yet)
 */
export async function pickSession(r: TowerResources, sessionId: string | undefined) {
  const s = await findSession(r, sessionId);
  if (s === undefined)
    throw new SessionNotFoundError("finished yet", "(record one: POST /api/sessions/start, then finish it)");
  return s;
}

/**
 * The latest (or named) finished session's draft, with the tower's edits; undefined when the latest is
 * asked for and no session has been finished yet. @throws see {@link pickSession}
 */
export async function findTowerDraft(r: TowerResources, sessionId?: string): Promise<TowerDraft | undefined> {
  const s = await findSession(r, sessionId);
  if (s === undefined) return undefined;
  const [edited] = await r.db.select().from(towerDrafts).where(eq(towerDrafts.sessionId, s.id)).limit(1);
  const generatedAt = new Date(s.finishedAt ?? s.updatedAt).toISOString();
  return {
    session_id: s.id,
    name: s.draft.name,
    start_url: s.draft.start_url,
    version: edited?.version ?? 0,
    steps: edited?.steps ?? s.draft.steps,
    secrets: s.draft.secrets,
    event_count: s.draft.event_count,
    generated_at: generatedAt,
    updated_at: edited === undefined ? generatedAt : new Date(edited.updatedAt).toISOString(),
  };
}

/** The latest (or named) finished session's draft, with the tower's edits. @throws see {@link pickSession} */
export async function getTowerDraft(r: TowerResources, sessionId?: string): Promise<TowerDraft> {
  const draft = await findTowerDraft(r, sessionId);
  if (draft === undefined)
    throw new SessionNotFoundError("finished yet", "(record one: POST /api/sessions/start, then finish it)");
  return draft;
}

/**
 * Edits the draft (reorder, delete, change a step's selectors or value), all edits or none. The write
 * happens only if the draft is still at `expected_version`: of two concurrent PATCHes at one version, one
 * wins and the other answers VERSION_CONFLICT.
 * @throws REQUEST_INVALID, STEP_NOT_FOUND (an edit names no step of the draft), VERSION_CONFLICT
 */
export async function patchTowerDraft(r: TowerResources, sessionId: string | undefined, body: unknown) {
  const parsed = TowerDraftPatch.safeParse(body);
  if (!parsed.success)
    throw new InvalidInputError("REQUEST_INVALID", "The draft edit is invalid.", parsed.error.issues);
  const { expected_version: expected, edits } = parsed.data;
  const draft = await getTowerDraft(r, sessionId);
  if (draft.version !== expected) throw stale(draft.session_id, expected, draft.version);
  const result = applyDraftEdits(draft.steps, edits);
  if (!result.ok)
    throw result.reason === "step_not_found"
      ? new DraftStepNotFoundError(draft.session_id, result.message)
      : new InvalidInputError("REQUEST_INVALID", result.message);
  await r.raceHooks.beforeDraftWrite?.(draft.session_id);
  const at = r.now();
  const next = { version: expected + 1, steps: result.steps, updatedAt: at };
  const written =
    expected === 0
      ? await r.db
          .insert(towerDrafts)
          .values({ sessionId: draft.session_id, ...next })
          .onConflictDoNothing()
          .returning({ v: towerDrafts.version })
      : await r.db
          .update(towerDrafts)
          .set(next)
          .where(and(eq(towerDrafts.sessionId, draft.session_id), eq(towerDrafts.version, expected)))
          .returning({ v: towerDrafts.version });
  if (written.length === 0) throw stale(draft.session_id, expected, undefined);
  return getTowerDraft(r, draft.session_id);
}

function stale(sessionId: string, expected: number, actual: number | undefined) {
  return new VersionConflictError(
    `The draft of session ${sessionId} is ${actual === undefined ? "no longer" : `at version ${actual}, not`} at version ${expected}: read it again (GET latest-flow-draft) and retry.`,
    { expected_version: expected, ...(actual === undefined ? {} : { version: actual }) },
  );
}
