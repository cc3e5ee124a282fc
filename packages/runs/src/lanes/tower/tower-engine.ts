import { getTowerDraft, patchTowerDraft } from "./drafts.js";
import { evidenceTimeline, stepEvidence } from "./evidence.js";
import { latestFlow } from "./latest-flow.js";
import { replayLatest, replayLatestFrom } from "./replay.js";
import type { TowerEngineOptions, TowerResources } from "./resources.js";

/**
 * Creates the command tower: the latest finished session's flow, its versioned draft edits, replays of it
 * (whole, from a step, one step — runs started with `start_at_step_id` / `stop_after_step_id`), and the
 * evidence those replays collected. `sessionId` arguments: undefined, `null` or `none` → the latest
 * finished session; empty or malformed → REQUEST_INVALID; unknown → SESSION_NOT_FOUND.
 */
export function createTowerEngine(options: TowerEngineOptions) {
  const r: TowerResources = {
    db: options.db,
    runs: options.runs,
    now: options.now ?? (() => Date.now()),
    raceHooks: options.raceHooks ?? {},
  };
  return {
    latestFlow: (sessionId?: string) => latestFlow(r, sessionId),
    getDraft: (sessionId?: string) => getTowerDraft(r, sessionId),
    patchDraft: (sessionId: string | undefined, body: unknown) => patchTowerDraft(r, sessionId, body),
    replayLatest: (sessionId: string | undefined, body: unknown) => replayLatest(r, sessionId, body),
    replayFromStep: (sessionId: string | undefined, body: unknown) =>
      replayLatestFrom(r, sessionId, body, false),
    replayStep: (sessionId: string | undefined, body: unknown) => replayLatestFrom(r, sessionId, body, true),
    evidence: (stepId: string | undefined, sessionId?: string) => stepEvidence(r, stepId, sessionId),
    evidenceTimeline: (sessionId?: string, limit?: number) => evidenceTimeline(r, sessionId, limit),
  };
}

/** The command tower engine. */
export type TowerEngine = ReturnType<typeof createTowerEngine>;
export type { TowerDraft } from "./drafts.js";
export { type TowerEvidence, TowerEvidence as TowerEvidenceSchema } from "./evidence.js";
export { LatestFlow } from "./latest-flow.js";
export { ReplayPreconditions, type TowerReplay, TowerReplayInput, TowerStepReplayInput } from "./replay.js";
export type { TowerEngineOptions, TowerRuns } from "./resources.js";
