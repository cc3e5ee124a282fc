/**
 * What the main thread and the file threads (`worker.ts`) say to each other: one request per batch of
 * items, one answer with the results in the items' order.
 */
import type { DateHint } from "../../domain/content-date.js";
import type { RawMeta } from "../../domain/content-meta.js";
import type { ConfinedMoveOutcome, FileFacts, SourceIdentity } from "../confined-fs.js";

/** What a reader thread tells about one file; `undefined` when it vanished or is not a regular file. */
export interface InspectedFile {
  path: string;
  size: number;
  mtime: number;
  dev: number;
  ino: number;
  /** Status change time, ms since the epoch (truncated). */
  ctime: number;
  sha256: string | null;
  /** The first bytes, only when magic-byte sniffing can tell more than the extension. */
  head: Uint8Array | null;
  /** The errno code when the file could not be read (a blocked row). */
  errorCode: string | null;
  /** Whether the first bytes are plain text (no magic bytes to sniff). */
  plainText: boolean;
  /** Date texts the content carries (EXIF, PDF, Office core properties), best first; left out when none. */
  dateHints?: DateHint[] | undefined;
  /** A photo's camera and a track's tags; left out when none. */
  meta?: RawMeta | undefined;
  /**
   * A text file's first bytes as text, or a PDF's text when the analyze asked for it (bounded:
   * `TEXT_EXCERPT_BYTES`); left out for other files.
   */
  text?: string | undefined;
}

/** What a file thread's lstat tells: the facts, `{ outside: true }` when the real parent is outside the roots, `null` when nothing is there. */
export type PathStat = FileFacts | { outside: true } | null;

/**
 * How a link + unlink move ended: moved; the target was occupied (nothing replaced); the source was gone;
 * outside the roots or not the recorded file (nothing touched); `copy` when links are refused there
 * (another device…): the caller copies instead; another error.
 */
export type LinkMoveOutcome = ConfinedMoveOutcome;

/** The real roots a call is confined to: sources (reads, stats, the side a move leaves) and targets. */
export interface PoolScope {
  source: readonly string[];
  target: readonly string[];
}

/** One move of a `link` batch: only the recorded file (`identity`) is moved, never clobbering. */
export interface LinkMove {
  from: string;
  to: string;
  identity: SourceIdentity | null;
}

/** A batch of one op's items for a file thread, confined to `scope`. */
export type ReaderBatch = { scope: PoolScope } & (
  | { op: "inspect"; items: readonly string[]; pdfText?: boolean | undefined }
  | { op: "stat"; items: readonly string[] }
  | { op: "link"; items: readonly LinkMove[] }
);

/** A batch as posted: `id` names its answer. */
export type ReaderRequest = ReaderBatch & { id: number };

/** A file thread's answer to the batch `id`. */
export interface ReaderAnswer {
  id: number;
  results: Array<InspectedFile | undefined | PathStat | LinkMoveOutcome>;
}
