// Flow reconstruction from recorded artifacts (HAR, events): profiles, previews, generated flows.
// Re-exported by `src/index.ts`.

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
} from "../domain/reconstruction/api.js";
export { Har, harExchanges } from "../domain/reconstruction/har.js";
export {
  EXTRACTOR_STRATEGIES,
  type ExtractorStrategy,
  UNRESOLVED_BELOW,
} from "../domain/reconstruction/inputs.js";
export { buildPreview, PREVIEW_MODES } from "../domain/reconstruction/preview.js";
export {
  PROFILE_SIGNALS,
  type Profile,
  type ProfileSignal,
  resolveProfile,
} from "../domain/reconstruction/profile.js";
export {
  isCardNumber,
  isSecretQueryParam,
  redactUrlSecrets,
  sensitiveKindOf,
} from "../domain/reconstruction/sensitive.js";
export {
  ArtifactNotFoundError,
  ArtifactTooLargeError,
  createReconstructionEngine,
  HarInvalidError,
  PathOutsideRootError,
  PREVIEW_TTL_MS,
  PreviewUnavailableError,
  type ReconstructionEngine,
  type ReconstructionEngineOptions,
} from "../lanes/reconstruction/index.js";
