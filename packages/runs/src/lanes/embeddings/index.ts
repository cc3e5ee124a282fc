// The embeddings lane: embedders (local worker, OpenAI-compatible) and the similar-failures index.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export { dot, type Embedder, normalize } from "./embedder.js";
export {
  EmbeddingsBusyError,
  UnknownModelError,
  UpstreamFailedError,
  UpstreamTimeoutError,
} from "./errors.js";
export { BLOCKING_REASONS, type SimilarFailure } from "./failure-context.js";
export { createFailureEmbeddings } from "./failure-embeddings.js";
export {
  createLocalEmbedder,
  createTokenizer,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalEmbedderOptions,
} from "./local.js";
export {
  createOpenAiCompatibleEmbedder,
  type OpenAiCompatibleOptions,
} from "./openai-compatible.js";
export { createEmbeddings, type Embeddings } from "./service.js";
