// The recording-sessions lane: a browser the user drives, recorded into HAR, artifacts and a flow draft.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export { RECORDER_SCRIPT } from "./recorder-script.js";
export {
  createSessionsEngine,
  type SessionsEngine,
  type SessionsEngineOptions,
} from "./sessions-engine.js";
