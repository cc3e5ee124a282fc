import { sql } from "drizzle-orm";
import { rows } from "../../store/schema.js";
import type { Queryable } from "../db.js";
import { findJob, type JobRecord } from "../records.js";

/**
 * The text filter's narrow search copy of a manifest: each row's source and target path, ASCII-folded as
 * SQLite's `LIKE` folds them, in one string in analyze order, held in memory. It only narrows: a text query
 * takes the rows whose paths contain the folded text here (a superset of the rows `LIKE` matches), and the
 * page is still read with every filter, `LIKE` included, so answers are the plain scan's.
 *
 * Built in the background after a succeeded manifest is first listed (never inside analyze, never
 * blocking a request: until it is ready the listing scans), in chunks that yield to other work; bound to
 * the manifest's state (status, revision, plan accumulator — every row's paths are in the plan digest), so
 * after an edit the listing scans again until the copy is rebuilt.
 */

/** Rows read per query while building (the event loop runs other work between chunks). */
const BUILD_CHUNK = 5_000;
/** How long after a manifest's listing the build starts, so that the first pages are answered first. */
const BUILD_DELAY_MS = 1_000;
/** Manifests held at once (least recently used dropped first). */
const MAX_MANIFESTS = 2;
/** Characters held at most (a larger manifest is not copied: its text filter scans). */
const MAX_CHARS = 48_000_000;

/** What ends each path in the copy (SQLite's `char(31)`): a needle holding it scans. */
const SEP = "\u001f";
/** A UTF-16 surrogate without its pair. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** ASCII letters to lower case, nothing else: how SQLite's `LIKE` compares (without ICU). */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

interface Copy {
  key: string;
  /** Each row's seq, ascending. */
  seqs: Float64Array;
  /** Where each row's text starts in `text`; one more entry: the end. */
  starts: Uint32Array;
  /** `source␟target␟` (␟ = U+001F) of every row, folded. */
  text: string;
}

/** What identifies a manifest's state: a copy built at another state is never used. */
function keyOf(job: JobRecord): string | undefined {
  if (job.status !== "succeeded") return undefined;
  return `${job.revision ?? 0}:${job.planAccumulator ?? ""}`;
}

/** The index of the first row with a seq above `seq`. */
function firstAfter(seqs: Float64Array, seq: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((seqs[mid] ?? 0) > seq) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The row whose text holds position `pos` (its start ≤ pos < the next start), from `from` on. */
function rowAt(starts: Uint32Array, pos: number, from: number): number {
  let lo = from;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if ((starts[mid] ?? 0) <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Candidate seqs of a text query: every row the filter may match among them; `done` when none follow. */
export interface Candidates {
  seqs: number[];
  done: boolean;
}

/** One chunk of a manifest's rows from `after` on: its seqs and its folded text (SQLite's ASCII `lower`). */
async function readChunk(
  db: Queryable,
  jobId: string,
  after: number,
): Promise<{ count: number; seqs: string; text: string }> {
  // Folded and joined by SQLite: far cheaper than a JS object per row.
  const chunk = await db.get<{ count: number; seqs: string | null; text: string | null }>(sql`
    SELECT count(*) AS count, group_concat(seq, ',' ORDER BY seq) AS seqs,
      group_concat(lower(source_path) || char(31) || lower(target_path) || char(31), '' ORDER BY seq) AS text
    FROM (SELECT seq, source_path, target_path FROM ${rows}
      WHERE job_id = ${jobId} AND seq > ${after} ORDER BY seq LIMIT ${BUILD_CHUNK})`);
  return { count: Number(chunk?.count ?? 0), seqs: chunk?.seqs ?? "", text: chunk?.text ?? "" };
}

async function readCopy(db: Queryable, jobId: string, key: string): Promise<Copy | undefined> {
  const seqs: number[] = [];
  const texts: string[] = [];
  const starts: number[] = [];
  let length = 0;
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const chunk = await readChunk(db, jobId, after);
    if (chunk.count === 0) break;
    const chunkSeqs = chunk.seqs.split(",").map(Number);
    // Each row is `source␟target␟`: anything else (a separator inside a path) and the manifest is not copied.
    let at = 0;
    for (let i = 0; i < chunkSeqs.length; i++) {
      starts.push(length + at);
      const mid = chunk.text.indexOf(SEP, at);
      const end = mid < 0 ? -1 : chunk.text.indexOf(SEP, mid + 1);
      if (end < 0) return undefined;
      at = end + 1;
    }
    if (at !== chunk.text.length || chunkSeqs.length !== chunk.count) return undefined;
    seqs.push(...chunkSeqs);
    texts.push(chunk.text);
    length += chunk.text.length;
    if (length > MAX_CHARS) return undefined;
    const last = chunkSeqs.at(-1);
    if (last === undefined || chunk.count < BUILD_CHUNK) break;
    after = last;
    await new Promise((resolve) => setImmediate(resolve));
  }
  starts.push(length);
  return { key, seqs: Float64Array.from(seqs), starts: Uint32Array.from(starts), text: texts.join("") };
}

/** The engine's search copies, one per recently listed manifest. */
export interface TextSearch {
  /**
   * Up to `count` candidate seqs after `afterSeq` for `text`, in order; `undefined` when no copy of this
   * state of the manifest is ready (the caller scans).
   */
  candidates(job: JobRecord, text: string, afterSeq: number, count: number): Candidates | undefined;
  /** Starts building a copy of the manifest's current state in the background, unless one is there. */
  warm(db: Queryable, job: JobRecord): void;
  /** Waits for the builds under way (tests, shutdown). */
  settled(): Promise<void>;
}

/** Creates the search copies of one engine. */
export function createTextSearch(options: { delayMs?: number } = {}): TextSearch {
  const delayMs = options.delayMs ?? BUILD_DELAY_MS;
  const copies = new Map<string, Copy>();
  const building = new Map<string, Promise<void>>();

  async function build(db: Queryable, jobId: string, key: string): Promise<void> {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    const copy = await readCopy(db, jobId, key);
    if (copy === undefined) return;
    // Rows read across chunks are one state only if the manifest is still at the state it started from.
    const now = await findJob(db, jobId);
    if (now === undefined || keyOf(now) !== key) return;
    copies.delete(jobId);
    copies.set(jobId, copy);
    while (copies.size > MAX_MANIFESTS) {
      const oldest = copies.keys().next().value;
      if (oldest === undefined) break;
      copies.delete(oldest);
    }
  }

  return {
    candidates(job, text, afterSeq, count) {
      const copy = copies.get(job.id);
      if (copy === undefined || copy.key !== keyOf(job)) return undefined;
      // SQLite reads a pattern up to a NUL, and binds a lone surrogate as U+FFFD: such text scans.
      if (text.includes("\0") || text.includes(SEP) || LONE_SURROGATE.test(text)) return undefined;
      copies.delete(job.id);
      copies.set(job.id, copy);
      const needle = foldAscii(text);
      const out: number[] = [];
      let row = firstAfter(copy.seqs, afterSeq);
      const end = copy.seqs.length;
      while (row < end && out.length < count) {
        const at = copy.text.indexOf(needle, copy.starts[row]);
        if (at < 0) return { seqs: out, done: true };
        row = rowAt(copy.starts, at, row);
        out.push(copy.seqs[row] ?? 0);
        row += 1;
      }
      return { seqs: out, done: row >= end };
    },
    warm(db, job) {
      const key = keyOf(job);
      if (key === undefined || copies.get(job.id)?.key === key || building.has(job.id)) return;
      const run = build(db, job.id, key)
        .catch(() => undefined)
        .finally(() => building.delete(job.id));
      building.set(job.id, run);
    },
    async settled() {
      await Promise.all(building.values());
    },
  };
}
