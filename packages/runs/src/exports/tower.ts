// The command tower: overview, replays and draft edits. Re-exported by `src/index.ts`.

export { applyDraftEdits, TowerDraftEdit, TowerDraftPatch } from "../domain/tower-draft.js";
export {
  createTowerEngine,
  DraftStepNotFoundError,
  LatestFlow,
  ReplayPreconditions,
  SessionIdInvalidError,
  type TowerDraft,
  type TowerEngine,
  type TowerEngineOptions,
  type TowerEvidence,
  TowerEvidenceSchema,
  type TowerReplay,
  TowerReplayInput,
  type TowerRuns,
  TowerStepReplayInput,
} from "../lanes/tower/index.js";
