/**
 * How long a path may be: a segment at most 255 bytes and a whole path at most 4096 bytes (UTF-8), as Linux
 * allows. Every path the API takes is checked against them at the edge, in time linear in its length, and
 * the renderer never makes a longer segment. Pure and free of `node:` imports (browser-safe).
 */
import { utf8ByteLength } from "./posix-path.js";

/** The longest path segment, in UTF-8 bytes (Linux `NAME_MAX`). */
export const MAX_SEGMENT_BYTES = 255;
/** The longest path, in UTF-8 bytes (Linux `PATH_MAX`). */
export const MAX_PATH_BYTES = 4096;

/**
 * Why `path` is too long (the limit in the message), or `undefined` when it fits: the whole path is
 * measured first, so a huge input costs one pass. Segments are split on `/`.
 */
export function pathLengthProblem(path: string): string | undefined {
  const bytes = utf8ByteLength(path);
  if (bytes > MAX_PATH_BYTES) {
    return `The path is ${bytes} bytes long (UTF-8); a path may be at most ${MAX_PATH_BYTES} bytes.`;
  }
  for (const segment of path.split("/")) {
    const length = utf8ByteLength(segment);
    if (length > MAX_SEGMENT_BYTES) {
      return `A path segment is ${length} bytes long (UTF-8); a segment may be at most ${MAX_SEGMENT_BYTES} bytes.`;
    }
  }
  return undefined;
}

/**
 * The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a surrogate pair; one
 * pass over at most `maxBytes` code units.
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const unit = text.charCodeAt(end);
    const pair = unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(end + 1));
    const size = unit < 0x80 ? 1 : unit < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** `text` without its trailing dots and spaces (a loop: the regex `/[. ]+$/` is quadratic on long runs). */
export function trimTrailingDotsAndSpaces(text: string): string {
  let end = text.length;
  while (end > 0) {
    const unit = text.charCodeAt(end - 1);
    if (unit !== 0x2e && unit !== 0x20) break;
    end--;
  }
  return text.slice(0, end);
}
