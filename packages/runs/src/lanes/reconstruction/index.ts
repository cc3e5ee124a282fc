// The reconstruction lane: profiles and HTTP/UI plans rebuilt from a recorded session's artifacts.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export {
  FromArtifactsInput,
  GenerateInput,
  GenerateResult,
  PreviewFlowDraft,
  PreviewInput,
  ProfileResolveInput,
  ProfileResult,
  ReconstructionArtifacts,
  ReconstructionPreview,
} from "../../domain/reconstruction/api.js";
export { Har, harExchanges } from "../../domain/reconstruction/har.js";
export {
  EXTRACTOR_STRATEGIES,
  type ExtractorStrategy,
  UNRESOLVED_BELOW,
} from "../../domain/reconstruction/inputs.js";
export { buildPreview, PREVIEW_MODES } from "../../domain/reconstruction/preview.js";
export {
  PROFILE_SIGNALS,
  type Profile,
  type ProfileSignal,
  resolveProfile,
} from "../../domain/reconstruction/profile.js";
export {
  isCardNumber,
  isSecretQueryParam,
  redactUrlSecrets,
  sensitiveKindOf,
} from "../../domain/reconstruction/sensitive.js";
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
