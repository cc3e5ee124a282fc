// The reconstruction lane: profiles and HTTP/UI plans rebuilt from a recorded session's artifacts.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export {
  createReconstructionEngine,
  PREVIEW_TTL_MS,
  type ReconstructionEngine,
  type ReconstructionEngineOptions,
} from "./reconstruction-engine.js";
export {
  ArtifactNotFoundError,
  ArtifactTooLargeError,
  HarInvalidError,
  PathOutsideRootError,
  PreviewUnavailableError,
} from "./reconstruction-errors.js";
