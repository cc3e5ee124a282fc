import * as fs from "node:fs";
import * as path from "node:path";
import {
  closeDirs,
  type DirCache,
  holdFolder,
  inParent,
  isWithin,
  openParent,
  type Refused,
  releaseParent,
} from "./confined-dirs.js";

export type { DirCache, HeldFolder, Refused } from "./confined-dirs.js";

/**
 * The confined file-system layer: every read, move (link + unlink), unlink, mkdir and rmdir of analyze,
 * apply, rollback and recovery goes through it. Right before acting, each call opens the parent directory,
 * reads where that directory really is, refuses it when it lies outside the given roots (`OUTSIDE_ROOT`,
 * nothing touched), and acts on the name inside that open directory (`/proc/self/fd/<fd>/<name>` on Linux,
 * see `confined-dirs.ts`) — so a symlink swapped into a path component after the check cannot carry the act
 * elsewhere. Files are opened with `O_NOFOLLOW` (where the platform has it) and a final component that is a
 * symlink is never acted on.
 *
 * The main thread imports this module; the file threads (see `inspect-pool.ts`) load the same module by URL,
 * so both threads check with one implementation, right before they act.
 */

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const READ_FLAGS = fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0);
const COPY_ERRORS = ["EXDEV", "EPERM", "ENOTSUP", "EMLINK", "ENOSYS"];

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

/** How a confined link + unlink move ended. */
export type ConfinedMoveOutcome =
  | { outcome: "moved" | "target_exists" | "source_missing" | "outside_root" | "source_changed" }
  | { outcome: "copy" | "error"; code: string };

/** A move the layer makes: the recorded file at `from` goes to `to` (never replacing anything there). */
export interface ConfinedMove {
  from: string;
  to: string;
  identity: SourceIdentity | null;
}

type Done<T> = T & { code?: undefined };

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? "EIO";
}

function refused(result: object): result is Refused {
  return "code" in result && typeof result.code === "string";
}

export function identityOf(st: fs.Stats): FileFacts {
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

/**
 * Whether a file still is the one recorded: same inode (dev, ino) and same size, mtime and ctime. Records
 * without an inode (made before identities were kept) compare size and mtime only.
 */
export function matchesIdentity(expected: SourceIdentity | null | undefined, facts: FileFacts): boolean {
  if (expected === null || expected === undefined) return true;
  if (facts.size !== expected.size || facts.mtime !== expected.mtime) return false;
  if (expected.dev === null || expected.ino === null) return true;
  if (facts.dev !== expected.dev || facts.ino !== expected.ino) return false;
  return expected.ctime === null || facts.ctime === expected.ctime;
}

/**
 * The path `target` names once its parent is resolved (real parent + basename), or why not. A check only:
 * nothing acts on the answer (an act goes through the parent's open directory).
 */
export function confine(roots: readonly string[], target: string): Refused | Done<{ path: string }> {
  return inParent(roots, target, undefined, (_at, reported) => ({ path: reported }));
}

/**
 * lstat of `target` in its checked parent. With a `parents` cache (real path per parent, one plan's
 * pre-check: nothing acts on the answer, each act checks again) the parent is resolved once per batch.
 */
export function lstatIn(
  roots: readonly string[],
  target: string,
  parents?: Map<string, string>,
  dirs?: DirCache,
): Refused | Done<{ path: string; facts: FileFacts }> {
  if (parents !== undefined) return lstatCached(roots, target, parents);
  try {
    return inParent(roots, target, dirs, (at, reported) => ({
      path: reported,
      facts: identityOf(fs.lstatSync(at)),
    }));
  } catch (err) {
    return { code: codeOf(err) };
  }
}

function lstatCached(
  roots: readonly string[],
  target: string,
  parents: Map<string, string>,
): Refused | Done<{ path: string; facts: FileFacts }> {
  const base = path.basename(target);
  if (base === "" || base === "." || base === ".." || !path.isAbsolute(target))
    return { code: "OUTSIDE_ROOT" };
  const dir = path.dirname(target);
  let parent = parents.get(dir);
  if (parent === undefined) {
    const opened = openParent(roots, dir);
    if (refused(opened)) return opened;
    releaseParent(opened);
    parent = opened.real;
    parents.set(dir, parent);
  }
  if (!isWithin(roots, parent)) return { code: "OUTSIDE_ROOT" };
  const resolved = path.join(parent, base);
  try {
    return { path: resolved, facts: identityOf(fs.lstatSync(resolved)) };
  } catch (err) {
    return { code: codeOf(err) };
  }
}

/** Opens a regular file read-only with `O_NOFOLLOW` (never through a symlink); the caller closes `fd`. */
export function openReadIn(
  roots: readonly string[],
  target: string,
  dirs?: DirCache,
): Refused | Done<{ path: string; fd: number; facts: FileFacts }> {
  const opened = inParent(roots, target, dirs, (at, reported) => {
    try {
      return { path: reported, fd: fs.openSync(at, READ_FLAGS) };
    } catch (err) {
      const code = codeOf(err);
      return { code: code === "ELOOP" ? "NOT_A_FILE" : code };
    }
  });
  if (refused(opened)) return opened;
  const facts = identityOf(fs.fstatSync(opened.fd));
  if (!facts.isFile) {
    fs.closeSync(opened.fd);
    return { code: "NOT_A_FILE" };
  }
  return { path: opened.path, fd: opened.fd, facts };
}

export function mkdirIn(roots: readonly string[], target: string): Refused | Done<{ path: string }> {
  return inParent(roots, target, undefined, (at, reported) => {
    try {
      fs.mkdirSync(at);
      return { path: reported };
    } catch (err) {
      return { code: codeOf(err) };
    }
  });
}

/** Removes an empty folder that really is a folder (not a symlink to one) inside the roots. */
export function rmdirIn(roots: readonly string[], target: string): Refused | Done<{ path: string }> {
  return inParent(roots, target, undefined, (at, reported) => {
    try {
      if (!fs.lstatSync(at).isDirectory()) return { code: "ENOTDIR" };
      fs.rmdirSync(at);
      return { path: reported };
    } catch (err) {
      return { code: codeOf(err) };
    }
  });
}

/** Unlinks a name in an open parent (`at`), only when it still is `inode` (when given). */
function unlinkAt(
  at: string,
  reported: string,
  inode?: { dev: number; ino: number },
): Refused | Done<{ path: string }> {
  try {
    const st = fs.lstatSync(at);
    if (st.isDirectory()) return { code: "EISDIR" };
    if (inode && (st.dev !== inode.dev || st.ino !== inode.ino)) return { code: "SOURCE_CHANGED" };
    fs.unlinkSync(at);
    return { path: reported };
  } catch (err) {
    return { code: codeOf(err) };
  }
}

/** Unlinks a file inside the roots; with an expected inode, only when the path still is that inode. */
export function unlinkIn(
  roots: readonly string[],
  target: string,
  inode?: { dev: number; ino: number },
): Refused | Done<{ path: string }> {
  return inParent(roots, target, undefined, (at, reported) => unlinkAt(at, reported, inode));
}

/** Links `from` (inside `fromRoots`) to the new name `to` (inside `toRoots`); never replaces what is there. */
export function linkIn(
  fromRoots: readonly string[],
  toRoots: readonly string[],
  from: string,
  to: string,
): Refused | Done<{ from: string; path: string }> {
  return inParent(fromRoots, from, undefined, (src, srcReported) =>
    inParent(toRoots, to, undefined, (dst, dstReported) => {
      try {
        fs.linkSync(src, dst);
        return { from: srcReported, path: dstReported };
      } catch (err) {
        return { code: codeOf(err) };
      }
    }),
  );
}

/**
 * A move by hard link + unlink that never replaces what is at the target (link fails with EEXIST), and
 * only moves the recorded file: its identity is checked right before the link (in the source's open
 * parent), the inode linked is checked again after it (a file swapped in between is unlinked from the
 * target and left alone), and the source name is removed from that same open parent. With `dirs` (one
 * batch's open directories, closed by the caller with `closeDirs`) each folder is opened once per batch.
 */
export function linkMoveIn(
  fromRoots: readonly string[],
  toRoots: readonly string[],
  move: ConfinedMove,
  dirs?: DirCache,
): ConfinedMoveOutcome {
  const done = inParent(fromRoots, move.from, dirs, (src) => {
    let facts: FileFacts;
    try {
      facts = identityOf(fs.lstatSync(src));
    } catch (err) {
      const code = codeOf(err);
      return code === "ENOENT" ? { outcome: "source_missing" as const } : { outcome: "error" as const, code };
    }
    if (!facts.isFile || !matchesIdentity(move.identity, facts))
      return { outcome: "source_changed" as const };
    const placed = inParent(toRoots, move.to, dirs, (dst) => linkChecked(src, dst, facts));
    return "outcome" in placed ? placed : outcomeOfRefusal(placed.code);
  });
  return "outcome" in done ? done : outcomeOfRefusal(done.code);
}

function outcomeOfRefusal(code: string): ConfinedMoveOutcome {
  if (code === "OUTSIDE_ROOT") return { outcome: "outside_root" };
  if (code === "ENOENT") return { outcome: "source_missing" };
  return { outcome: "error", code };
}

/** Links `src` to `dst` (both inside open parents), checks the inode placed, then unlinks `src`. */
function linkChecked(src: string, dst: string, facts: FileFacts): ConfinedMoveOutcome {
  try {
    fs.linkSync(src, dst);
  } catch (err) {
    const code = codeOf(err);
    if (code === "EEXIST") return { outcome: "target_exists" };
    if (code === "ENOENT") return { outcome: "source_missing" };
    if (COPY_ERRORS.includes(code)) return { outcome: "copy", code };
    return { outcome: "error", code };
  }
  try {
    const placed = fs.lstatSync(dst);
    if (placed.dev !== facts.dev || placed.ino !== facts.ino) {
      fs.unlinkSync(dst);
      return { outcome: "source_changed" };
    }
  } catch (err) {
    return { outcome: "error", code: codeOf(err) };
  }
  const removed = unlinkAt(src, src, facts);
  if (removed.code !== undefined && removed.code !== "SOURCE_CHANGED" && removed.code !== "ENOENT") {
    return { outcome: "error", code: removed.code };
  }
  return { outcome: "moved" };
}

/** The confined operations; `roots` are real paths (a path is allowed when its real parent is inside one). */
export const confinedFs = {
  confine,
  isWithin,
  identityOf,
  matchesIdentity,
  lstatIn,
  openReadIn,
  holdFolder,
  mkdirIn,
  rmdirIn,
  unlinkIn,
  linkIn,
  linkMoveIn,
  closeDirs,
};

/** The shape of the layer (the file threads load the same functions). */
export type ConfinedFs = typeof confinedFs;

/**
 * The roots a job's operations on `dir` are confined to: `[dir]` when that real path lies inside an allowed
 * root, else none (everything is refused `OUTSIDE_ROOT`).
 */
export function confineScope(allowedRoots: readonly string[], dir: string): string[] {
  return isWithin(allowedRoots, dir) ? [dir] : [];
}
