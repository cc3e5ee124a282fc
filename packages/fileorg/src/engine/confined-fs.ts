import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The confined file-system layer: every read, move (link + unlink), unlink, mkdir and rmdir of analyze,
 * apply, rollback and recovery goes through it. Right before acting, each call resolves the real path of
 * the parent directory (`realpath`), refuses it when it lies outside the given roots (`OUTSIDE_ROOT`,
 * nothing touched), and acts on `realParent + basename` only — so no symlink in a path component is ever
 * followed unless this layer resolved it itself. Files are opened with `O_NOFOLLOW` (where the platform
 * has it) and a final component that is a symlink is never acted on.
 *
 * The code is plain JavaScript over Node built-ins, kept as source text: the file threads (see
 * `inspect-pool.ts`) evaluate it inside their script, and the main thread instantiates the same text
 * here, so both threads check with one implementation, right before they act.
 */
export const CONFINED_FS_SOURCE = `
const NOFOLLOW = fs.constants.O_NOFOLLOW || 0;
const READ_FLAGS = fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK || 0);
const COPY_ERRORS = ["EXDEV", "EPERM", "ENOTSUP", "EMLINK", "ENOSYS"];

function isWithin(roots, real) {
  return roots.some((root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
}

// Whether /proc/self/fd tells the real path of an open descriptor (Linux with /proc mounted).
function procFdWorks() {
  if (process.platform !== "linux") return false;
  try {
    const fd = fs.openSync("/", fs.constants.O_RDONLY);
    try {
      return fs.readlinkSync("/proc/self/fd/" + fd) === "/";
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}
const PROC_FD = procFdWorks();
const DIR_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY || 0);

// The real path of the directory "dir" right now. With a "dirs" cache (one batch on a file thread, closed
// by its owner with closeDirs), each directory is opened once and every call reads where that very
// directory is now from /proc/self/fd (one readlink instead of one per path component). The answer is used
// only when it is "dir" itself: then "dir" names that directory right now (no component is a symlink, it
// was not renamed or replaced), which is what a fresh realpath would answer; anything else resolves anew.
function realDir(dir, dirs) {
  if (dirs !== undefined && PROC_FD) {
    let fd = dirs.get(dir);
    if (fd === undefined) {
      try {
        fd = fs.openSync(dir, DIR_FLAGS);
      } catch {
        fd = -1;
      }
      dirs.set(dir, fd);
    }
    if (fd >= 0) {
      try {
        if (fs.readlinkSync("/proc/self/fd/" + fd) === dir) return dir;
      } catch {}
    }
  }
  return fs.realpathSync.native(dir);
}

// Closes the directories a "dirs" cache opened.
function closeDirs(dirs) {
  for (const fd of dirs.values()) {
    if (fd < 0) continue;
    try {
      fs.closeSync(fd);
    } catch {}
  }
  dirs.clear();
}

// The path to act on: the real parent (inside a root) joined with the unresolved basename. A "parents"
// cache (real path per parent) is only for checks that do not act (a plan's pre-check); acts resolve anew
// (with a "dirs" cache: through the directory's open descriptor, see realDir).
function confine(roots, target, parents, dirs) {
  const base = path.basename(target);
  if (base === "" || base === "." || base === ".." || !path.isAbsolute(target)) return { code: "OUTSIDE_ROOT" };
  const dir = path.dirname(target);
  let parent = parents && parents.get(dir);
  if (parent === undefined) {
    try {
      parent = realDir(dir, dirs);
    } catch (err) {
      return { code: err.code === "ENOTDIR" ? "ENOENT" : err.code || "EIO" };
    }
    if (parents) parents.set(dir, parent);
  }
  if (!isWithin(roots, parent)) return { code: "OUTSIDE_ROOT" };
  return { path: path.join(parent, base) };
}

function identityOf(st) {
  return {
    isFile: st.isFile(),
    isDirectory: st.isDirectory(),
    dev: st.dev,
    ino: st.ino,
    size: st.size,
    mtime: Math.trunc(st.mtimeMs),
    ctime: Math.trunc(st.ctimeMs),
  };
}

// Whether a file still is the one recorded: same inode (dev, ino) and same size, mtime and ctime. Records
// without an inode (made before identities were kept) compare size and mtime only.
function matchesIdentity(expected, facts) {
  if (expected === null || expected === undefined) return true;
  if (facts.size !== expected.size || facts.mtime !== expected.mtime) return false;
  if (expected.dev === null || expected.ino === null) return true;
  if (facts.dev !== expected.dev || facts.ino !== expected.ino) return false;
  return expected.ctime === null || facts.ctime === expected.ctime;
}

function lstatIn(roots, target, parents, dirs) {
  const at = confine(roots, target, parents, dirs);
  if (at.code !== undefined) return at;
  try {
    return { path: at.path, facts: identityOf(fs.lstatSync(at.path)) };
  } catch (err) {
    return { code: err.code || "EIO" };
  }
}

// Opens a regular file for reading, never through a symlink; answers the descriptor and its fstat.
function openReadIn(roots, target, dirs) {
  const at = confine(roots, target, undefined, dirs);
  if (at.code !== undefined) return at;
  let fd;
  try {
    fd = fs.openSync(at.path, READ_FLAGS);
  } catch (err) {
    return { code: err.code === "ELOOP" ? "NOT_A_FILE" : err.code || "EIO" };
  }
  const facts = identityOf(fs.fstatSync(fd));
  if (!facts.isFile) {
    fs.closeSync(fd);
    return { code: "NOT_A_FILE" };
  }
  return { path: at.path, fd, facts };
}

function mkdirIn(roots, target) {
  const at = confine(roots, target);
  if (at.code !== undefined) return at;
  try {
    fs.mkdirSync(at.path);
    return { path: at.path };
  } catch (err) {
    return { code: err.code || "EIO" };
  }
}

// Removes an empty folder that really is a folder (not a symlink to one) inside the roots.
function rmdirIn(roots, target) {
  const at = lstatIn(roots, target);
  if (at.code !== undefined) return at;
  if (!at.facts.isDirectory) return { code: "ENOTDIR" };
  try {
    fs.rmdirSync(at.path);
    return { path: at.path };
  } catch (err) {
    return { code: err.code || "EIO" };
  }
}

// Unlinks a file inside the roots; with an expected inode, only when the path still is that inode.
function unlinkIn(roots, target, inode) {
  const at = confine(roots, target);
  return at.code !== undefined ? at : unlinkResolved(at.path, inode);
}

// Unlinks a path this layer just resolved (real parent + basename), only when it still is "inode".
function unlinkResolved(resolved, inode) {
  try {
    const st = fs.lstatSync(resolved);
    if (st.isDirectory()) return { code: "EISDIR" };
    if (inode && (st.dev !== inode.dev || st.ino !== inode.ino)) return { code: "SOURCE_CHANGED" };
    fs.unlinkSync(resolved);
    return { path: resolved };
  } catch (err) {
    return { code: err.code || "EIO" };
  }
}

function linkIn(fromRoots, toRoots, from, to) {
  const src = confine(fromRoots, from);
  if (src.code !== undefined) return src;
  const dst = confine(toRoots, to);
  if (dst.code !== undefined) return dst;
  try {
    fs.linkSync(src.path, dst.path);
    return { from: src.path, path: dst.path };
  } catch (err) {
    return { code: err.code || "EIO" };
  }
}

// A move by hard link + unlink that never replaces what is at the target (link fails with EEXIST), and
// only moves the recorded file: its identity is checked right before the link, and the inode linked is
// checked again after it (a file swapped in between is unlinked from the target and left alone).
function linkMoveIn(fromRoots, toRoots, move, dirs) {
  const src = lstatIn(fromRoots, move.from, undefined, dirs);
  if (src.code === "OUTSIDE_ROOT") return { outcome: "outside_root" };
  if (src.code === "ENOENT") return { outcome: "source_missing" };
  if (src.code !== undefined) return { outcome: "error", code: src.code };
  if (!src.facts.isFile || !matchesIdentity(move.identity, src.facts)) return { outcome: "source_changed" };
  const dst = confine(toRoots, move.to, undefined, dirs);
  if (dst.code === "OUTSIDE_ROOT") return { outcome: "outside_root" };
  if (dst.code !== undefined) return { outcome: "error", code: dst.code };
  try {
    fs.linkSync(src.path, dst.path);
  } catch (err) {
    const code = err.code || "EIO";
    if (code === "EEXIST") return { outcome: "target_exists" };
    if (code === "ENOENT") return { outcome: "source_missing" };
    if (COPY_ERRORS.includes(code)) return { outcome: "copy", code };
    return { outcome: "error", code };
  }
  let placed;
  try {
    placed = fs.lstatSync(dst.path);
    if (placed.dev !== src.facts.dev || placed.ino !== src.facts.ino) {
      fs.unlinkSync(dst.path);
      return { outcome: "source_changed" };
    }
  } catch (err) {
    return { outcome: "error", code: err.code || "EIO" };
  }
  // The source's real parent was resolved right before the link: the same resolved path is unlinked.
  const removed = unlinkResolved(src.path, src.facts);
  if (removed.code !== undefined && removed.code !== "SOURCE_CHANGED" && removed.code !== "ENOENT") {
    return { outcome: "error", code: removed.code };
  }
  return { outcome: "moved" };
}

const confinedFs = {
  confine,
  isWithin,
  identityOf,
  matchesIdentity,
  lstatIn,
  openReadIn,
  mkdirIn,
  rmdirIn,
  unlinkIn,
  linkIn,
  linkMoveIn,
  closeDirs,
};
`;

/** A file's identity as analyze recorded it; `dev`/`ino`/`ctime` are `null` on rows made before they were kept. */
export interface SourceIdentity {
  dev: number | null;
  ino: number | null;
  size: number;
  mtime: number;
  ctime: number | null;
}

/** What an lstat/fstat through the layer tells. */
export interface FileFacts {
  isFile: boolean;
  isDirectory: boolean;
  dev: number;
  ino: number;
  size: number;
  /** ms since the epoch, truncated. */
  mtime: number;
  /** ms since the epoch, truncated. */
  ctime: number;
}

/** A refusal (`OUTSIDE_ROOT`, `NOT_A_FILE`, `SOURCE_CHANGED`) or an errno code: nothing was touched. */
export interface Refused {
  code: string;
  path?: undefined;
}

/** How a confined link + unlink move ended. */
export type ConfinedMoveOutcome =
  | { outcome: "moved" | "target_exists" | "source_missing" | "outside_root" | "source_changed" }
  | { outcome: "copy" | "error"; code: string };

/** The confined operations; `roots` are real paths (a path is allowed when its real parent is inside one). */
export interface ConfinedFs {
  /** The path to act on (real parent + basename), or why not. */
  confine(roots: readonly string[], target: string): Refused | { path: string; code?: undefined };
  isWithin(roots: readonly string[], real: string): boolean;
  matchesIdentity(expected: SourceIdentity | null, facts: FileFacts): boolean;
  lstatIn(
    roots: readonly string[],
    target: string,
  ): Refused | { path: string; facts: FileFacts; code?: undefined };
  /** Opens a regular file read-only with `O_NOFOLLOW`; the caller closes `fd`. */
  openReadIn(
    roots: readonly string[],
    target: string,
    dirs?: Map<string, number>,
  ): Refused | { path: string; fd: number; facts: FileFacts; code?: undefined };
  mkdirIn(roots: readonly string[], target: string): Refused | { path: string; code?: undefined };
  rmdirIn(roots: readonly string[], target: string): Refused | { path: string; code?: undefined };
  unlinkIn(
    roots: readonly string[],
    target: string,
    inode?: { dev: number; ino: number },
  ): Refused | { path: string; code?: undefined };
  linkIn(
    fromRoots: readonly string[],
    toRoots: readonly string[],
    from: string,
    to: string,
  ): Refused | { from: string; path: string; code?: undefined };
  /**
   * With `dirs` (one batch's open directories; the caller closes them with `closeDirs`), each real parent is
   * read from its open directory's `/proc/self/fd` link where that answers the parent's own path.
   */
  linkMoveIn(
    fromRoots: readonly string[],
    toRoots: readonly string[],
    move: { from: string; to: string; identity: SourceIdentity | null },
    dirs?: Map<string, number>,
  ): ConfinedMoveOutcome;
  /** Closes the directories a batch's `dirs` opened and empties it. */
  closeDirs(dirs: Map<string, number>): void;
}

/** The layer on the main thread: the same source the file threads evaluate. */
export const confinedFs: ConfinedFs = new Function("fs", "path", `${CONFINED_FS_SOURCE}\nreturn confinedFs;`)(
  fs,
  path,
) as ConfinedFs;

/**
 * The roots a job's operations on `dir` are confined to: `[dir]` when that real path lies inside an allowed
 * root, else none (everything is refused `OUTSIDE_ROOT`).
 */
export function confineScope(allowedRoots: readonly string[], dir: string): string[] {
  return confinedFs.isWithin(allowedRoots, dir) ? [dir] : [];
}
