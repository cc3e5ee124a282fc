// The embeddings lane: embedders (local worker, OpenAI-compatible) and the similar-failures index.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export {
  EMBEDDINGS_MAX_CHARS,
  EMBEDDINGS_MAX_TEXTS,
  EmbeddingsBatchRequest,
  EmbeddingsBatchResponse,
  hasControlCharacters,
} from "../../domain/embeddings.js";
export { dot, type Embedder, normalize } from "./embedder.js";
export {
  EmbeddingsBusyError,
  UnknownModelError,
  UpstreamFailedError,
  UpstreamTimeoutError,
} from "./errors.js";
export { BLOCKING_REASONS, type SimilarFailure } from "./failure-context.js";
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
