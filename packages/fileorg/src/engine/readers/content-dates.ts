/**
 * The file threads' date readers, over Node built-ins (and `exifr`, loaded on the first photo). Given the
 * first bytes of a file the thread was reading anyway and its descriptor, `contentOf` answers the date
 * texts the content carries, best first — EXIF `DateTimeOriginal`/`CreateDate` of a photo (JPEG, PNG, TIFF,
 * HEIC/AVIF), a PDF's `/CreationDate` or XMP `xmp:CreateDate` (head and last 64 KiB), an Office document's
 * `docProps/core.xml` `dcterms:created` (through the zip's central directory, one bounded entry inflated) —
 * or a promise of them (EXIF, with the photo's camera `Make`/`Model` from the same parse). Reads are bounded; anything unexpected yields no hint. The texts are parsed
 * and checked on the main thread by the pure `chooseDate` (`domain/content-date.ts`).
 */
import { readSync } from "node:fs";
import { createRequire } from "node:module";
import { inflateRawSync } from "node:zlib";
import type { DateHint } from "../../domain/content-date.js";

/** How many first bytes a reader keeps for the date readers (a PDF's head side). */
export const DATE_HEAD = 65536;
/** The end of central directory record (22 bytes) plus the longest zip comment. */
const ZIP_TAIL = 65557;
const MAX_ZIP_DIRECTORY = 1 << 20;
/** An Office part is never inflated past this (a zip bomb yields no hint). */
const MAX_CORE_XML = 1 << 20;
const EXIF_TAGS = ["DateTimeOriginal", "CreateDate"] as const;
/** The EXIF camera fields read with the dates (one parse). */
const CAMERA_TAGS = ["Make", "Model"] as const;

/** What the content readers found: date texts (best first) and, for a photo, its camera. */
export interface ContentRead {
  hints: DateHint[];
  camera?: { make?: string | undefined; model?: string | undefined } | undefined;
}

type ExifParse = typeof import("exifr")["parse"];
/** `exifr`, required on the first photo only: most analyses never parse EXIF. */
let exifParse: ExifParse | undefined;
function loadExifParse(): ExifParse {
  // Required, not imported: the package is CommonJS, and its named exports reach an ES import only as `default`.
  exifParse ??= (createRequire(import.meta.url)("exifr") as typeof import("exifr")).parse;
  return exifParse;
}

/** The kind of content whose dates a reader can read, by its first bytes; `null`: none. */
export type DateKind = "image" | "zip" | "pdf";

/** Which date reader applies to a file starting with `head`. */
export function dateKindOf(head: Buffer): DateKind | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image";
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a)
    return "image";
  if (isTiff(head)) return "image";
  if (
    head.length >= 12 &&
    head.toString("latin1", 4, 8) === "ftyp" &&
    /^(hei|hev|mif1|msf1|avi)/.test(head.toString("latin1", 8, 12))
  )
    return "image";
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return "zip";
  const pdf = head.indexOf("%PDF-", 0, "latin1");
  if (pdf !== -1 && pdf < 1024) return "pdf";
  return null;
}

function isTiff(head: Buffer): boolean {
  if (head.length < 4) return false;
  const little = head[0] === 0x49 && head[1] === 0x49 && head[2] === 0x2a && head[3] === 0;
  const big = head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && head[3] === 0x2a;
  return little || big;
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
function readAt(fd: number, length: number, position: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, out, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return out.subarray(0, got);
}

/** A PDF literal string as text: UTF-16BE (with its BOM) or escaped PDFDocEncoding. */
function decodePdfString(raw: string): string {
  if (raw.charCodeAt(0) === 0xfe && raw.charCodeAt(1) === 0xff) {
    let text = "";
    for (let i = 3; i < raw.length; i += 2) text += raw[i];
    return text;
  }
  return raw.replace(/\\(.)/g, "$1");
}

function pdfHints(fd: number, head: Buffer, size: number): DateHint[] {
  const parts = [head];
  const rest = Math.min(DATE_HEAD, size - head.length);
  // The trailer side first: an incremental update appends the newest Info dictionary at the end.
  if (rest > 0) parts.unshift(readAt(fd, rest, size - rest));
  const hints: DateHint[] = [];
  for (const part of parts) {
    const text = part.toString("latin1");
    const info = /\/CreationDate\s*\(((?:\\.|[^)\\]){1,120})\)/.exec(text);
    if (info?.[1] !== undefined) hints.push({ source: "pdf", text: decodePdfString(info[1]) });
    const xmp = /<xmp:CreateDate>\s*([^<]{4,40})<|xmp:CreateDate="([^"]{4,40})"/.exec(text);
    const created = xmp?.[1] ?? xmp?.[2];
    if (created !== undefined) hints.push({ source: "pdf", text: created });
  }
  return hints;
}

/** The bytes of the zip entry named `wanted` (stored or deflated, bounded), or `null`. */
function zipEntry(fd: number, size: number, wanted: string): Buffer | null {
  const tail = readAt(fd, Math.min(ZIP_TAIL, size), Math.max(0, size - ZIP_TAIL));
  const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1 || eocd + 22 > tail.length) return null;
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirOffset = tail.readUInt32LE(eocd + 16);
  if (dirSize > MAX_ZIP_DIRECTORY || dirOffset + dirSize > size) return null;
  const dir = readAt(fd, dirSize, dirOffset);
  for (let at = 0; at + 46 <= dir.length && dir.readUInt32LE(at) === 0x02014b50; ) {
    const nameLength = dir.readUInt16LE(at + 28);
    const name = dir.toString("utf8", at + 46, at + 46 + nameLength);
    if (name === wanted) return entryData(fd, dir, at);
    at += 46 + nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
  }
  return null;
}

/** The data of the central directory entry at `at`, through its local header. */
function entryData(fd: number, dir: Buffer, at: number): Buffer | null {
  const method = dir.readUInt16LE(at + 10);
  const compressed = dir.readUInt32LE(at + 20);
  if (compressed > MAX_CORE_XML || (method !== 0 && method !== 8)) return null;
  const localAt = dir.readUInt32LE(at + 42);
  const local = readAt(fd, 30, localAt);
  if (local.length < 30 || local.readUInt32LE(0) !== 0x04034b50) return null;
  const start = localAt + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const data = readAt(fd, compressed, start);
  return method === 0 ? data : inflateRawSync(data, { maxOutputLength: MAX_CORE_XML });
}

function officeHints(fd: number, size: number): DateHint[] {
  const core = zipEntry(fd, size, "docProps/core.xml");
  if (core === null) return [];
  const created = /<dcterms:created\b[^>]*>\s*([^<]{4,40})</.exec(core.toString("utf8"));
  return created?.[1] === undefined ? [] : [{ source: "office", text: created[1] }];
}

async function exifRead(head: Buffer): Promise<ContentRead> {
  try {
    const tags: unknown = await loadExifParse()(head, {
      pick: [...EXIF_TAGS, ...CAMERA_TAGS],
      reviveValues: false,
    });
    const hints: DateHint[] = [];
    if (typeof tags !== "object" || tags === null) return { hints };
    const record = tags as Record<string, unknown>;
    for (const key of EXIF_TAGS) {
      const text = record[key];
      if (typeof text === "string") hints.push({ source: "exif", text });
    }
    const make = typeof record.Make === "string" ? record.Make : undefined;
    const model = typeof record.Model === "string" ? record.Model : undefined;
    return make === undefined && model === undefined ? { hints } : { hints, camera: { make, model } };
  } catch {
    return { hints: [] };
  }
}

/** The date texts of a file's content (best first) and a photo's camera, or a promise of them (EXIF); never throws. */
export function contentOf(fd: number, head: Buffer, size: number): ContentRead | Promise<ContentRead> {
  try {
    const kind = dateKindOf(head);
    if (kind === "image") return exifRead(head);
    if (kind === "pdf") return { hints: pdfHints(fd, head, size) };
    if (kind === "zip") return { hints: officeHints(fd, size) };
  } catch {
    // A truncated or malformed file: no hint, the mtime decides.
  }
  return { hints: [] };
}
