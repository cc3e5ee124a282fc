/**
 * POSIX path and UTF-8 helpers with Node's semantics but without `node:` imports, so the naming-template
 * renderer runs in a browser too (`@vetted/fileorg/browser`). `posix-path.test.ts` checks each against
 * `node:path` and `Buffer` on generated inputs.
 */

/** The index just past the last non-slash character (0 when `path` is empty or only slashes). */
function endOfLastSegment(path: string): number {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  return end;
}

/** The last segment of `path`, trailing slashes ignored (`posix.basename`, without the suffix argument). */
export function basename(path: string): string {
  const end = endOfLastSegment(path);
  if (end === 0) return "";
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/** Everything before the last segment of `path` (`posix.dirname`): `.` when relative, `/` at the root. */
export function dirname(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const end = Math.max(1, endOfLastSegment(path));
  const slash = end === 1 ? -1 : path.lastIndexOf("/", end - 1);
  if (slash <= 0) return rooted ? "/" : ".";
  if (slash === 1 && rooted) return "//";
  return path.slice(0, slash);
}

/** The extension of the last segment, from its last dot (`posix.extname`): none for `.bashrc` or `..`. */
export function extname(path: string): string {
  const last = basename(path);
  const dot = last.lastIndexOf(".");
  if (dot <= 0 || last === "..") return "";
  return last.slice(dot);
}

/**
 * Whether `candidate` is `root` itself or lies inside it, segment by segment (`/a/bc` is not inside `/a/b`).
 * Both are absolute, normalized `/`-paths; no file system is consulted, so a symlink is the caller's to
 * resolve first. The one "path inside root" test of the package.
 */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  return candidate.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/** The length of `text` in UTF-8 bytes; a lone surrogate counts as U+FFFD, three bytes (as `Buffer.byteLength`). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
