/**
 * What a file thread does to one item: read and hash a file (with its content's dates), lstat a path, or
 * move a file by link + unlink — each through the confined layer it is handed, so every read and move
 * checks its real parent right before it acts, on the thread that acts. Synchronous calls on one descriptor
 * (open, fstat, read, close): no thread-pool round trip per call.
 */
import { createHash } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import type { RawMeta } from "../../domain/content-meta.js";
import type { ConfinedFs, FileFacts } from "../confined-fs.js";
import { type ContentRead, contentOf, DATE_HEAD, dateKindOf } from "./content-dates.js";
import { audioHeadLength, audioTagsOf, keepsTextExcerpt, textExcerptOf } from "./content-meta.js";
import { PDF_TEXT_MAX_BYTES, pdfTextOf } from "./pdf-text.js";
import type { InspectedFile, LinkMove, LinkMoveOutcome, PathStat, PoolScope } from "./protocol.js";

/** The first bytes kept for magic-byte sniffing (what `file-type` reads at most). */
const HEAD = 4100;
const TEXT_MAGIC = ["%PDF", "{\\rtf", "%!", "<?xml", "<svg", "#!"];
/** One read buffer per thread, reused for every file. */
const buffer = Buffer.allocUnsafe(1 << 20);

/** One batch's caches: real parents resolved once, and the directories it opened (closed at its end). */
export interface BatchCaches {
  parents: Map<string, string>;
  dirs: Map<string, number>;
}

/**
 * The confined layer as the file threads use it: `lstatIn` also takes a batch's cache of real parents
 * (a plan's pre-check resolves each parent once per batch; a move never uses it).
 */
export type ThreadConfinedFs = ConfinedFs & {
  lstatIn(
    roots: readonly string[],
    target: string,
    parents?: Map<string, string>,
  ): ReturnType<ConfinedFs["lstatIn"]>;
};

/** Plain text with no known text-based magic: sniffing cannot say more than the extension. */
export function isPlainText(head: Buffer): boolean {
  for (const b of head) {
    if (b < 0x09 || (b > 0x0d && b < 0x20 && b !== 0x1b)) return false;
  }
  const start = head.subarray(0, 8).toString("latin1").trimStart();
  return !TEXT_MAGIC.some((m) => start.startsWith(m));
}

type Facts = Pick<InspectedFile, "path" | "size" | "mtime" | "dev" | "ino" | "ctime">;

function factsOf(file: string, info: FileFacts): Facts {
  return { path: file, size: info.size, mtime: info.mtime, dev: info.dev, ino: info.ino, ctime: info.ctime };
}

/** What one pass over the file's bytes found. */
interface ReadPass {
  sha256: string;
  head: Uint8Array | null;
  plainText: boolean;
  /** A copy of the first bytes when a date reader applies to them. */
  dateHead: Buffer | null;
  /** A copy of a track's first bytes (its tags), bounded by `AUDIO_HEAD`. */
  audioHead: Buffer | null;
  /** A text file's excerpt, when its name says it is kept. */
  text: string | undefined;
  /** A PDF's whole bytes, when its text is asked for (bounded by `PDF_TEXT_MAX_BYTES`). */
  pdf: Uint8Array | null;
}

/** What a read keeps besides what it always keeps: a text file's excerpt, a PDF's bytes (for its text). */
interface KeepOptions {
  text: boolean;
  pdf: boolean;
}

/** A copy of the whole file when it is a PDF whose text is asked for and not too large; else `null`. */
function pdfCopyFor(first: Buffer, size: number, keep: KeepOptions): Uint8Array | null {
  if (!keep.pdf || size > PDF_TEXT_MAX_BYTES) return null;
  return dateKindOf(first.subarray(0, HEAD)) === "pdf" ? new Uint8Array(size) : null;
}

/** What the first read of a file keeps beyond its sniffing head. */
type Kept = Partial<Pick<ReadPass, "dateHead" | "audioHead" | "text">>;

/** What the first read of a file keeps beyond its sniffing head: the date head, a track's head, a text excerpt. */
function keptOf(first: Buffer, plainText: boolean, keepText: boolean): Kept {
  if (plainText) return { text: keepText ? textExcerptOf(first) : undefined };
  const head = first.subarray(0, HEAD);
  const dateHead = dateKindOf(head) === null ? null : Buffer.from(first.subarray(0, DATE_HEAD));
  const audio = dateHead === null ? audioHeadLength(first) : 0;
  return { dateHead, audioHead: audio === 0 ? null : Buffer.from(first.subarray(0, audio)) };
}

/**
 * Reads the whole file once, hashing it as it goes; keeps the head where sniffing, dates or tags need it,
 * a text file's excerpt, and a PDF's bytes when its text is asked for.
 */
function readPass(fd: number, size: number, keep: KeepOptions): ReadPass {
  const hash = createHash("sha256");
  let head: Uint8Array | null = null;
  let plainText = false;
  let kept: Kept = {};
  let pdf: Uint8Array | null = null;
  let position = 0;
  for (;;) {
    const n = readSync(fd, buffer, 0, buffer.length, position);
    if (n === 0) break;
    if (position === 0) {
      const first = buffer.subarray(0, Math.min(n, HEAD));
      plainText = isPlainText(first);
      head = plainText ? null : Uint8Array.prototype.slice.call(first);
      kept = keptOf(buffer.subarray(0, n), plainText, keep.text);
      if (!plainText) pdf = pdfCopyFor(buffer.subarray(0, n), size, keep);
    }
    hash.update(buffer.subarray(0, n));
    // A file grown since fstat is not copied past its size: no text then.
    if (pdf !== null && position + n <= pdf.length) pdf.set(buffer.subarray(0, n), position);
    else pdf = null;
    position += n;
    // A short read ending exactly at the size fstat gave is the end: no extra read to see EOF.
    if (position === size && n < buffer.length) break;
  }
  return {
    sha256: hash.digest("hex"),
    head,
    plainText,
    dateHead: kept.dateHead ?? null,
    audioHead: kept.audioHead ?? null,
    text: kept.text,
    pdf: pdf !== null && position === pdf.length ? pdf : null,
  };
}

/** The inspected file with what its content says (no field for what it does not say). */
function withContent(
  base: InspectedFile,
  read: ContentRead,
  audio: RawMeta["audio"],
  text: string | undefined,
): InspectedFile {
  const out: InspectedFile = { ...base };
  if (read.hints.length > 0) out.dateHints = read.hints;
  if (read.camera !== undefined || audio !== undefined) out.meta = { camera: read.camera, audio };
  if (text !== undefined) out.text = text;
  return out;
}

function errnoOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code !== "" ? code : "EIO";
}

/**
 * Reads one file through the confined layer: its real parent must lie inside the roots, the file is opened
 * with O_NOFOLLOW (never a symlink swapped in since the walk) and O_NONBLOCK (never blocking on a FIFO).
 * A photo's EXIF and a track's tags are parsed asynchronously (from a copy of its first bytes, the file
 * already closed); so is a PDF's text when `pdfText` asks for it (from a copy of the whole PDF); the thread
 * parses one file at a time, so it holds at most one such copy.
 */
export function inspectFile(
  confined: ThreadConfinedFs,
  file: string,
  scope: PoolScope,
  caches: BatchCaches,
  pdfText = false,
): InspectedFile | undefined | Promise<InspectedFile> {
  const opened = confined.openReadIn(scope.source, file, caches.dirs);
  if (opened.code !== undefined) {
    if (opened.code === "OUTSIDE_ROOT" || opened.code === "NOT_A_FILE" || opened.code === "ENOENT")
      return undefined;
    const seen = confined.lstatIn(scope.source, file);
    if (seen.code !== undefined || !seen.facts.isFile) return undefined;
    return {
      ...factsOf(file, seen.facts),
      sha256: null,
      head: null,
      errorCode: opened.code,
      plainText: false,
    };
  }
  const { fd, facts: info } = opened;
  try {
    const facts = factsOf(file, info);
    try {
      const pass = readPass(fd, info.size, { text: keepsTextExcerpt(file), pdf: pdfText });
      const { sha256, head, plainText, dateHead, audioHead, text, pdf } = pass;
      const base: InspectedFile = { ...facts, sha256, head, errorCode: null, plainText };
      const read = dateHead === null ? { hints: [] } : contentOf(fd, dateHead, info.size);
      if (audioHead !== null)
        return audioTagsOf(audioHead).then((audio) => withContent(base, { hints: [] }, audio, text));
      if (pdf !== null)
        return Promise.all([read, pdfTextOf(pdf)]).then(([r, pdfText]) =>
          withContent(base, r, undefined, pdfText ?? text),
        );
      return read instanceof Promise
        ? read.then((r) => withContent(base, r, undefined, text))
        : withContent(base, read, undefined, text);
    } catch (readError) {
      return { ...facts, sha256: null, head: null, errorCode: errnoOf(readError), plainText: false };
    }
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Already closed or never valid: nothing more to release.
    }
  }
}

/** A plan's pre-check (the move re-checks right before it acts): real parents are resolved once per batch. */
export function statPath(
  confined: ThreadConfinedFs,
  file: string,
  scope: PoolScope,
  caches: BatchCaches,
): PathStat {
  const seen = confined.lstatIn(scope.source, file, caches.parents);
  if (seen.code === "OUTSIDE_ROOT") return { outside: true };
  return seen.code === undefined ? seen.facts : null;
}

/**
 * One link + unlink move. Never the batch's parents cache: each move resolves its real parents right before
 * it acts (through the batch's open directories: one readlink of /proc/self/fd each, see `realDir`).
 */
export function linkMove(
  confined: ThreadConfinedFs,
  move: LinkMove,
  scope: PoolScope,
  caches: BatchCaches,
): LinkMoveOutcome {
  return confined.linkMoveIn(scope.source, scope.target, move, caches.dirs);
}
