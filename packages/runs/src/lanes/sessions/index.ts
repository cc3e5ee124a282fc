// The recording-sessions lane: a browser the user drives, recorded into HAR, artifacts and a flow draft.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export { buildFlowDraft, type DraftStep, type FlowDraftBody } from "../../domain/flow-draft.js";
export { RecordedEvent } from "../../domain/recording.js";
export {
  FlowDraft,
  FlowFromSessionInput,
  isHttpUrl,
  SESSION_STATUSES,
  Session,
  SessionArtifact,
  SessionStartInput,
} from "../../domain/session.js";
export { SessionNotActiveError, SessionStartError } from "../../kernel/lane-errors.js";
export { RECORDER_SCRIPT } from "./recorder-script.js";
export {
  createSessionsEngine,
  type SessionsEngine,
  type SessionsEngineOptions,
} from "./sessions-engine.js";
