/**
 * The file threads' metadata readers besides dates: a track's tags through `music-metadata` (an optional
 * peer, loaded on the first track: when it is not installed, tracks simply have no tags) and a text file's
 * first bytes as its excerpt. Both read only the bytes the thread read anyway; both are bounded; anything
 * unexpected yields nothing.
 */
import type { AudioTags } from "../../domain/content-meta.js";

/** The most bytes of a track's head kept for its tags (an ID3v2 tag larger than this is not read). */
export const AUDIO_HEAD = 1 << 20;
/** The head of a track whose tags do not say their size (FLAC, Ogg, MP4, WAV…). */
const AUDIO_HEAD_DEFAULT = 256 << 10;
/** The most bytes of a text file kept as its excerpt (for the rules' `text` filter). */
export const TEXT_EXCERPT_BYTES = 16 << 10;

/** Files whose text is kept as an excerpt: documents and data written as text (not source code). */
const TEXT_EXT =
  /\.(txt|text|md|markdown|rst|org|adoc|csv|tsv|json|jsonl|ndjson|xml|html?|ya?ml|toml|ini|log|tex|srt|vtt|eml|ics|vcf)$/i;

interface MusicMetadata {
  parseBuffer(
    bytes: Uint8Array,
    fileInfo?: { mimeType?: string; size?: number },
    options?: { duration?: boolean; skipCovers?: boolean; skipPostHeaders?: boolean },
  ): Promise<{ common: Record<string, unknown> }>;
}

/** Imports a package by name (the test's seam to stand for a package that is not installed). */
export type Importer = (name: string) => Promise<unknown>;

/** `music-metadata` once loaded; `null` when it is not installed (then no track has tags). */
let musicMetadata: Promise<MusicMetadata | null> | undefined;

function importMusicMetadata(importer: Importer): Promise<MusicMetadata | null> {
  return importer("music-metadata").then(
    (m) => m as MusicMetadata,
    () => null,
  );
}

/** An ID3v2 tag's whole size (header included) from its syncsafe size field, or `undefined`. */
function id3Size(head: Buffer): number | undefined {
  if (head.length < 10 || head.toString("latin1", 0, 3) !== "ID3") return undefined;
  let size = 0;
  for (let i = 6; i < 10; i++) size = (size << 7) | ((head[i] ?? 0) & 0x7f);
  const footer = ((head[5] ?? 0) & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/**
 * How many first bytes of a file a tag reader needs, by its first bytes (`first`, the thread's first
 * read); 0: not a track. An ID3v2-tagged file needs its tag plus the first frame header.
 */
export function audioHeadLength(first: Buffer): number {
  const id3 = id3Size(first);
  if (id3 !== undefined) return Math.min(AUDIO_HEAD, id3 + 4096, first.length);
  const magic = first.toString("latin1", 0, 4);
  const isAudio =
    magic === "fLaC" ||
    magic === "OggS" ||
    (magic === "RIFF" && first.toString("latin1", 8, 12) === "WAVE") ||
    (magic === "FORM" && /^AIF[FC]$/.test(first.toString("latin1", 8, 12))) ||
    (first.toString("latin1", 4, 8) === "ftyp" &&
      /^(M4A |M4B |mp42|isom)/.test(first.toString("latin1", 8, 12))) ||
    (first.length >= 2 && first[0] === 0xff && ((first[1] ?? 0) & 0xe0) === 0xe0 && (first[1] ?? 0) < 0xfe);
  return isAudio ? Math.min(AUDIO_HEAD_DEFAULT, first.length) : 0;
}

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

/**
 * The tags of a track from its head, or `undefined` (no reader installed, no tags, a malformed file).
 * `importer` stands for another installation (loaded afresh, not kept).
 */
export async function audioTagsOf(head: Uint8Array, importer?: Importer): Promise<AudioTags | undefined> {
  try {
    musicMetadata ??= importMusicMetadata((name) => import(name));
    const mm = await (importer === undefined ? musicMetadata : importMusicMetadata(importer));
    if (mm === null) return undefined;
    const { common } = await mm.parseBuffer(head, undefined, {
      duration: false,
      skipCovers: true,
      skipPostHeaders: true,
    });
    const track = (common.track as { no?: unknown } | undefined)?.no;
    const genre = Array.isArray(common.genre) ? common.genre.find((g) => typeof g === "string") : undefined;
    const tags: AudioTags = {
      artist: text(common.artist),
      album_artist: text(common.albumartist),
      album: text(common.album),
      title: text(common.title),
      track: typeof track === "number" ? track : undefined,
      year: typeof common.year === "number" ? common.year : undefined,
      genre: text(genre),
    };
    return Object.values(tags).some((v) => v !== undefined) ? tags : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a file's text is kept as an excerpt, by its name. */
export function keepsTextExcerpt(path: string): boolean {
  return TEXT_EXT.test(path);
}

/** The first {@link TEXT_EXCERPT_BYTES} of a text file as text (a character cut at the end is dropped). */
export function textExcerptOf(first: Buffer): string {
  const bytes = first.subarray(0, TEXT_EXCERPT_BYTES);
  let end = bytes.length;
  // Back off a UTF-8 sequence cut by the bound: at most 3 continuation bytes and their lead.
  if (first.length > TEXT_EXCERPT_BYTES) {
    let i = end - 1;
    while (i > end - 4 && i >= 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80) i--;
    const lead = bytes[i] ?? 0;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (i + need > end) end = i;
  }
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString("utf8", start, end);
}
