/**
 * The freedesktop.org Trash specification's pure parts (no I/O): the `.trashinfo` text, its percent-encoded
 * `Path=`, its local `DeletionDate=`, and the names a trashed file may take.
 * https://specifications.freedesktop.org/trash-spec/latest/
 */

/** The extension of a trash info file (`info/<name>.trashinfo`). */
export const TRASHINFO_EXTENSION = ".trashinfo";

/** Bytes kept unescaped in `Path=` (RFC 2396 unreserved characters and the path separator). */
const UNRESERVED = /^[A-Za-z0-9\-_.!~*'()/]$/;

/** Percent-encodes a path as the spec's `Path=` key wants it (UTF-8 bytes, `/` kept). */
export function encodeTrashPath(path: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(path)) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Decodes a `Path=` value (throws on a malformed escape). */
export function decodeTrashPath(encoded: string): string {
  return decodeURIComponent(encoded);
}

/** Local wall-clock parts of the deletion time (the caller reads them from its clock and time zone). */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const two = (n: number) => String(n).padStart(2, "0");

/** `YYYY-MM-DDThh:mm:ss`, the spec's `DeletionDate=` format (local time, no zone). */
export function formatDeletionDate(t: LocalTime): string {
  return `${String(t.year).padStart(4, "0")}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}`;
}

/** The text of a `.trashinfo` file: `Path` as given (absolute, or relative to a top directory). */
export function formatTrashInfo(path: string, deletionDate: string): string {
  return `[Trash Info]\nPath=${encodeTrashPath(path)}\nDeletionDate=${deletionDate}\n`;
}

/** A parsed `.trashinfo`: the decoded `Path` and the `DeletionDate`, or undefined when it is not one. */
export function parseTrashInfo(text: string): { path: string; deletionDate: string } | undefined {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (lines[0] !== "[Trash Info]") return undefined;
  let path: string | undefined;
  let deletionDate: string | undefined;
  for (const line of lines.slice(1)) {
    if (line.startsWith("[")) break;
    if (line.startsWith("Path=") && path === undefined) {
      try {
        path = decodeTrashPath(line.slice(5));
      } catch {
        return undefined;
      }
    } else if (line.startsWith("DeletionDate=") && deletionDate === undefined) {
      deletionDate = line.slice(13);
    }
  }
  if (path === undefined || deletionDate === undefined) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(deletionDate)) return undefined;
  return { path, deletionDate };
}

/**
 * The `n`-th name a file called `base` may take in a trash (`n` from 1): the name itself, then
 * `stem.2.ext`, `stem.3.ext`, … (a leading dot is part of the stem).
 */
export function trashNameCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? `${base.slice(0, dot)}.${n}${base.slice(dot)}` : `${base}.${n}`;
}
