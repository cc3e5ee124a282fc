import { parseInput } from "../../core/persist.js";
import { EmbeddingsBatchRequest, type EmbeddingsBatchResponse } from "../../domain/embeddings.js";
import type { Embedder } from "./embedder.js";
import { UnknownModelError } from "./errors.js";

/** The embeddings service: the configured models (the first is the default) and batches over them. */
export interface Embeddings {
  /** The configured model names, the default first. */
  models(): string[];
  /** The model by name (default: the first). @throws MODEL_UNKNOWN */
  embedder(model?: string): Embedder;
  /** Embeds a batch. @throws REQUEST_INVALID, MODEL_UNKNOWN, UPSTREAM_FAILED, UPSTREAM_TIMEOUT */
  embedBatch(input: EmbeddingsBatchRequest): Promise<EmbeddingsBatchResponse>;
}

/** Creates the embeddings service over `embedders` (at least one; the first is the default). */
export function createEmbeddings(embedders: readonly Embedder[]): Embeddings {
  const byName = new Map(embedders.map((e) => [e.model, e]));
  const names = [...byName.keys()];
  function embedder(model?: string): Embedder {
    const found = model === undefined ? embedders[0] : byName.get(model);
    if (found === undefined) throw new UnknownModelError(model ?? "(default)", names);
    return found;
  }
  return {
    models: () => [...names],
    embedder,
    async embedBatch(input) {
      const body = parseInput(EmbeddingsBatchRequest, input, "REQUEST_INVALID", "The embeddings batch");
      const chosen = embedder(body.model);
      const vectors = await chosen.embed(body.texts);
      return {
        model: chosen.model,
        vector_count: vectors.length,
        dimension: vectors[0]?.length ?? chosen.dimension,
        vectors: vectors.map((v) => Array.from(v)),
      };
    },
  };
}
