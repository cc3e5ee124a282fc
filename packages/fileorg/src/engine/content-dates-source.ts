/**
 * The file threads' date readers: plain JavaScript over Node built-ins (and `exifr`, loaded on the first
 * photo from the path in `EXIFR_PATH`), spliced into the reader threads' source. Given the first bytes of a
 * file it was reading anyway and its descriptor, `dateHintsOf` answers the date texts the content carries,
 * best first — EXIF `DateTimeOriginal`/`CreateDate` of a photo (JPEG, PNG, TIFF, HEIC/AVIF), a PDF's
 * `/CreationDate` or XMP `xmp:CreateDate` (head and last 64 KiB), an Office document's
 * `docProps/core.xml` `dcterms:created` (through the zip's central directory, one bounded entry inflated) —
 * or a promise of them (EXIF). Reads are bounded; anything unexpected yields no hint. The texts are parsed
 * and checked on the main thread by the pure `chooseDate` (`domain/content-date.ts`).
 */
export const CONTENT_DATES_SOURCE = String.raw`
const zlib = require("node:zlib");
const DATE_HEAD = 65536;
const ZIP_TAIL = 65557;
const MAX_ZIP_DIRECTORY = 1 << 20;
const MAX_CORE_XML = 1 << 20;
let exifrModule = null;

function dateKindOf(head) {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image";
  if (head.length >= 8 && head.readUInt32BE(0) === 0x89504e47 && head.readUInt32BE(4) === 0x0d0a1a0a) return "image";
  if (head.length >= 4 && ((head[0] === 0x49 && head[1] === 0x49 && head[2] === 0x2a && head[3] === 0) ||
      (head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && head[3] === 0x2a))) return "image";
  if (head.length >= 12 && head.toString("latin1", 4, 8) === "ftyp" &&
      /^(hei|hev|mif1|msf1|avi)/.test(head.toString("latin1", 8, 12))) return "image";
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return "zip";
  const pdf = head.indexOf("%PDF-", 0, "latin1");
  if (pdf !== -1 && pdf < 1024) return "pdf";
  return null;
}

function readAt(fd, length, position) {
  const out = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, out, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return out.subarray(0, got);
}

function decodePdfString(raw) {
  if (raw.charCodeAt(0) === 0xfe && raw.charCodeAt(1) === 0xff) {
    let text = "";
    for (let i = 3; i < raw.length; i += 2) text += raw[i];
    return text;
  }
  return raw.replace(/\\(.)/g, "$1");
}

function pdfHints(fd, head, size) {
  const parts = [head];
  const rest = Math.min(DATE_HEAD, size - head.length);
  // The trailer side first: an incremental update appends the newest Info dictionary at the end.
  if (rest > 0) parts.unshift(readAt(fd, rest, size - rest));
  const hints = [];
  for (const part of parts) {
    const text = part.toString("latin1");
    const info = /\/CreationDate\s*\(((?:\\.|[^)\\]){1,120})\)/.exec(text);
    if (info !== null) hints.push({ source: "pdf", text: decodePdfString(info[1]) });
    const xmp = /<xmp:CreateDate>\s*([^<]{4,40})<|xmp:CreateDate="([^"]{4,40})"/.exec(text);
    if (xmp !== null) hints.push({ source: "pdf", text: xmp[1] || xmp[2] });
  }
  return hints;
}

function zipEntry(fd, size, wanted) {
  const tail = readAt(fd, Math.min(ZIP_TAIL, size), Math.max(0, size - ZIP_TAIL));
  const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd === -1 || eocd + 22 > tail.length) return null;
  const dirSize = tail.readUInt32LE(eocd + 12);
  const dirOffset = tail.readUInt32LE(eocd + 16);
  if (dirSize > MAX_ZIP_DIRECTORY || dirOffset + dirSize > size) return null;
  const dir = readAt(fd, dirSize, dirOffset);
  for (let at = 0; at + 46 <= dir.length && dir.readUInt32LE(at) === 0x02014b50;) {
    const method = dir.readUInt16LE(at + 10);
    const compressed = dir.readUInt32LE(at + 20);
    const nameLength = dir.readUInt16LE(at + 28);
    const skip = nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
    const name = dir.toString("utf8", at + 46, at + 46 + nameLength);
    if (name === wanted) {
      if (compressed > MAX_CORE_XML || (method !== 0 && method !== 8)) return null;
      const local = readAt(fd, 30, dir.readUInt32LE(at + 42));
      if (local.length < 30 || local.readUInt32LE(0) !== 0x04034b50) return null;
      const start = dir.readUInt32LE(at + 42) + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      const data = readAt(fd, compressed, start);
      return method === 0 ? data : zlib.inflateRawSync(data, { maxOutputLength: MAX_CORE_XML });
    }
    at += 46 + skip;
  }
  return null;
}

function officeHints(fd, size) {
  const core = zipEntry(fd, size, "docProps/core.xml");
  if (core === null) return [];
  const created = /<dcterms:created\b[^>]*>\s*([^<]{4,40})</.exec(core.toString("utf8"));
  return created === null ? [] : [{ source: "office", text: created[1] }];
}

function exifHints(head) {
  if (exifrModule === null) exifrModule = require(EXIFR_PATH);
  const options = { pick: ["DateTimeOriginal", "CreateDate"], reviveValues: false };
  return exifrModule.parse(head, options).then(
    (tags) => {
      const hints = [];
      for (const key of ["DateTimeOriginal", "CreateDate"]) {
        if (tags && typeof tags[key] === "string") hints.push({ source: "exif", text: tags[key] });
      }
      return hints;
    },
    () => [],
  );
}

// The date texts of a file's content (best first), or a promise of them; never throws.
function dateHintsOf(fd, head, size) {
  try {
    const kind = dateKindOf(head);
    if (kind === "image") return exifHints(head);
    if (kind === "pdf") return pdfHints(fd, head, size);
    if (kind === "zip") return officeHints(fd, size);
  } catch {}
  return [];
}
`;
