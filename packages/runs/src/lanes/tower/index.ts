// The command tower lane: overview, replays and draft edits.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

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
