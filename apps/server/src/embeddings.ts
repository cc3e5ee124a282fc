import { join } from "node:path";
import {
  createEmbeddings,
  createLocalEmbedder,
  createOpenAiCompatibleEmbedder,
  type Embeddings,
} from "@vetted/runs/embeddings";
import type { Config } from "./config.js";

/**
 * The server's embeddings models: `local` (word vectors shipped with @vetted/runs, cached parsed under the
 * data dir) first, and the OpenAI-compatible model of `VETTED_EMBEDDINGS_*` when configured.
 */
export function createServerEmbeddings(config: Pick<Config, "dataDir" | "embeddingsRemote">): Embeddings {
  const local = createLocalEmbedder({ cacheDir: join(config.dataDir, "cache") });
  const remote = config.embeddingsRemote;
  if (remote === undefined) return createEmbeddings([local]);
  return createEmbeddings([
    local,
    createOpenAiCompatibleEmbedder({ url: remote.url, model: remote.model, apiKey: remote.apiKey }),
  ]);
}
