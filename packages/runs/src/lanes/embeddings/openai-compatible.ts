import { z } from "zod";
import { type Embedder, normalize } from "./embedder.js";
import { UpstreamFailedError, UpstreamTimeoutError } from "./errors.js";

/** What {@link createOpenAiCompatibleEmbedder} is built from (`VETTED_EMBEDDINGS_URL`, `_MODEL`, `_API_KEY`). */
export interface OpenAiCompatibleOptions {
  /** The base URL; requests go to `<url>/embeddings` (e.g. `http://127.0.0.1:11434/v1`). */
  url: string;
  model: string;
  apiKey?: string | undefined;
  /** The vectors' dimension; absent = learnt from the first answer (every vector must then have it). */
  dimension?: number | undefined;
  /** Milliseconds before a request is abandoned with UPSTREAM_TIMEOUT (default 30 000). */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

const Answer = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** An embeddings model behind an OpenAI-compatible `POST /embeddings` endpoint. */
export function createOpenAiCompatibleEmbedder(options: OpenAiCompatibleOptions): Embedder {
  const endpoint = `${options.url.replace(/\/+$/, "")}/embeddings`;
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let dimension = options.dimension;
  async function call(texts: readonly string[]): Promise<Response> {
    try {
      return await doFetch(endpoint, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          ...(options.apiKey === undefined ? {} : { Authorization: `Bearer ${options.apiKey}` }),
        },
        body: JSON.stringify({ model: options.model, input: texts }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      if (err instanceof Error && err.name === "TimeoutError")
        throw new UpstreamTimeoutError(options.model, timeoutMs);
      throw new UpstreamFailedError(`The embeddings server could not be reached: ${String(err)}.`, {
        status: null,
      });
    }
  }
  return {
    model: options.model,
    get dimension() {
      return dimension ?? 0;
    },
    async embed(texts) {
      const res = await call(texts);
      let body: unknown;
      try {
        body = await res.json();
      } catch (err) {
        if (err instanceof Error && err.name === "TimeoutError")
          throw new UpstreamTimeoutError(options.model, timeoutMs);
        body = undefined;
      }
      if (!res.ok) {
        throw new UpstreamFailedError(`The embeddings server answered ${res.status}.`, {
          status: res.status,
        });
      }
      const parsed = Answer.safeParse(body);
      if (!parsed.success || parsed.data.data.length !== texts.length) {
        throw new UpstreamFailedError(
          "The embeddings server answered something other than one embedding a text.",
          {
            status: res.status,
          },
        );
      }
      const vectors = [...parsed.data.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
      const expected = dimension ?? vectors[0]?.length ?? 0;
      if (expected === 0 || vectors.some((v) => v.length !== expected)) {
        throw new UpstreamFailedError(
          `The embeddings server answered vectors that are not all ${expected}-dimensional.`,
          { status: res.status },
        );
      }
      dimension = expected;
      return vectors.map((v) => normalize(Float32Array.from(v)));
    },
  };
}
