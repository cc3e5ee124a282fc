import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** A table of word vectors: each word's row in one Float32Array, rows in the file's (frequency) order. */
export interface WordVectors {
  dimension: number;
  /** Word → row (the rank by frequency: 0 is the most frequent word). */
  index: Map<string, number>;
  /** `index.size × dimension` floats, each row L2-normalised. */
  data: Float32Array;
}

const YIELD_EVERY = 4096;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** Reads one JSON number starting at `at`; returns it and the offset after it. */
function readNumber(buf: Buffer, start: number): [number, number] {
  let at = start;
  let sign = 1;
  if (buf[at] === 0x2d) {
    sign = -1;
    at += 1;
  }
  let value = 0;
  let c = buf[at] ?? 0;
  while (c >= 0x30 && c <= 0x39) {
    value = value * 10 + (c - 0x30);
    c = buf[++at] ?? 0;
  }
  if (c === 0x2e) {
    let scale = 0.1;
    c = buf[++at] ?? 0;
    while (c >= 0x30 && c <= 0x39) {
      value += (c - 0x30) * scale;
      scale /= 10;
      c = buf[++at] ?? 0;
    }
  }
  if (c === 0x65 || c === 0x45) {
    at += 1;
    let expSign = 1;
    if (buf[at] === 0x2d || buf[at] === 0x2b) {
      expSign = buf[at] === 0x2d ? -1 : 1;
      at += 1;
    }
    let exp = 0;
    c = buf[at] ?? 0;
    while (c >= 0x30 && c <= 0x39) {
      exp = exp * 10 + (c - 0x30);
      c = buf[++at] ?? 0;
    }
    value *= 10 ** (expSign * exp);
  }
  return [sign * value, at];
}

/** Reads the JSON string whose opening quote is at `start`; returns it and the offset after its closing quote. */
function readString(buf: Buffer, start: number): [string, number] {
  let at = start + 1;
  let escaped = false;
  while (at < buf.length && buf[at] !== QUOTE) {
    if (buf[at] === BACKSLASH) {
      escaped = true;
      at += 1;
    }
    at += 1;
  }
  const raw = buf.toString("utf8", start, at + 1);
  return [escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1), at + 1];
}

/**
 * Parses the `vectors` object of a wink embeddings file (`{"word": [d0 … d(n-1), l2norm, index], …}`) with
 * a single scan of the bytes, into one Float32Array: faster than `JSON.parse` and a fraction of its memory,
 * yielding to the event loop every few thousand words. Rows are L2-normalised.
 */
export async function parseWinkVectors(buf: Buffer, dimension: number): Promise<WordVectors> {
  const marker = buf.indexOf('"vectors":{');
  if (marker === -1) throw new Error("not a wink embeddings file: no vectors object");
  const index = new Map<string, number>();
  let data = new Float32Array(dimension * 1024);
  let at = marker + '"vectors":{'.length;
  let row = 0;
  while (buf[at] === QUOTE) {
    const [word, afterKey] = readString(buf, at);
    at = afterKey + 2; // past `:[`
    if ((row + 1) * dimension > data.length) {
      const grown = new Float32Array(data.length * 2);
      grown.set(data);
      data = grown;
    }
    let col = 0;
    let norm = 0;
    while (buf[at] !== CLOSE_BRACKET) {
      const [value, next] = readNumber(buf, at);
      if (col < dimension) {
        data[row * dimension + col] = value;
        norm += value * value;
      }
      col += 1;
      at = buf[next] === COMMA ? next + 1 : next;
    }
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < dimension; i++) data[row * dimension + i] = (data[row * dimension + i] ?? 0) * scale;
    if (!index.has(word)) index.set(word, row);
    row += 1;
    // Give the event loop a turn now and then: a server stays responsive while the table loads.
    if (row % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve));
    at += 1; // past `]`
    if (buf[at] === COMMA) at += 1;
    else if (buf[at] === CLOSE_BRACE) break;
  }
  return { dimension, index, data: data.slice(0, row * dimension) };
}

/**
 * Reads and parses a wink embeddings file. With `cacheDir`, the parsed table is kept there as a binary
 * file (Float32 rows + the word list, keyed by the source's size and mtime, written atomically), so later
 * loads read it back in a fraction of the time.
 */
export async function loadWinkVectors(
  file: string,
  dimension: number,
  cacheDir?: string,
): Promise<WordVectors> {
  if (cacheDir === undefined) return parseWinkVectors(await readFile(file), dimension);
  const info = await stat(file);
  const base = join(cacheDir, `wink-vectors-${dimension}-${info.size}-${Math.floor(info.mtimeMs)}`);
  const cached = await readCache(base, dimension);
  if (cached !== undefined) return cached;
  const vectors = await parseWinkVectors(await readFile(file), dimension);
  await writeCache(base, vectors).catch(() => undefined);
  return vectors;
}

async function readCache(base: string, dimension: number): Promise<WordVectors | undefined> {
  try {
    const [words, bytes] = await Promise.all([
      readFile(`${base}.words.json`, "utf8"),
      readFile(`${base}.f32`),
    ]);
    const list = JSON.parse(words) as string[];
    if (bytes.byteLength !== list.length * dimension * 4) return undefined;
    const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const index = new Map<string, number>();
    list.forEach((word, row) => {
      if (!index.has(word)) index.set(word, row);
    });
    return { dimension, index, data };
  } catch {
    return undefined;
  }
}

async function writeCache(base: string, vectors: WordVectors): Promise<void> {
  const words: string[] = new Array<string>(vectors.data.length / vectors.dimension).fill("");
  for (const [word, row] of vectors.index) words[row] = word;
  const dir = join(base, "..");
  await mkdir(dir, { recursive: true });
  const tmp = `${base}.${process.pid}.${Date.now()}`;
  await writeFile(
    `${tmp}.f32`,
    Buffer.from(vectors.data.buffer, vectors.data.byteOffset, vectors.data.byteLength),
  );
  await writeFile(`${tmp}.words.json`, JSON.stringify(words));
  // The vectors first: a reader that finds the word list finds its vectors too.
  await rename(`${tmp}.f32`, `${base}.f32`);
  await rename(`${tmp}.words.json`, `${base}.words.json`);
}
