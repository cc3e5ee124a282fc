// The command tower lane: overview, replays and draft edits.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export { applyDraftEdits, TowerDraftEdit, TowerDraftPatch } from "../../domain/tower-draft.js";
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
} from "./tower-engine.js";
export { DraftStepNotFoundError, SessionIdInvalidError } from "./tower-errors.js";
