// The command tower: overview, replays and draft edits. Re-exported by `src/index.ts`.

export { applyDraftEdits, TowerDraftEdit, TowerDraftPatch } from "../domain/tower-draft.js";
export {
  createTowerEngine,
  LatestFlow,
  ReplayPreconditions,
  type TowerDraft,
  type TowerEngine,
  type TowerEngineOptions,
  type TowerEvidence,
  TowerEvidenceSchema,
  type TowerReplay,
  TowerReplayInput,
  type TowerRuns,
  TowerStepReplayInput,
} from "../engine/tower/tower-engine.js";
export { DraftStepNotFoundError, SessionIdInvalidError } from "../tower-errors.js";
