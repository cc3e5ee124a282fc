import * as fs from "node:fs";
import * as path from "node:path";

/**
 * The parent directories the confined layer acts in. On Linux each act goes through an open descriptor of
 * the parent whose real path was checked: `/proc/self/fd/<fd>/<name>` reaches that very directory, not
 * whatever sits at its old path by the time the act runs, so a path component swapped for a symlink
 * between the check and the act (a `renameat2(RENAME_EXCHANGE)` loop) cannot carry the act outside the
 * roots. Elsewhere (no `/proc/self/fd`) the real path is resolved right before acting, as best Node allows.
 */

/** A batch's open directories: path → descriptor (-1: could not be opened). The owner closes them with {@link closeDirs}. */
export type DirCache = Map<string, number>;

/** A refusal (`OUTSIDE_ROOT`, `NOT_A_FILE`, `SOURCE_CHANGED`) or an errno code: nothing was touched. */
export interface Refused {
  code: string;
  path?: undefined;
}

/** A checked parent: its real path (inside the roots when it was checked) and the prefix to act through. */
export interface Parent {
  /** The real path of the directory when it was checked. */
  real: string;
  /** `/proc/self/fd/<fd>` (the opened directory itself), or the real path where /proc cannot tell. */
  via: string;
  fd: number | null;
  /** Whether the descriptor is closed after the act (not kept by a batch's cache). */
  owned: boolean;
}

const PROC = "/proc/self/fd/";
const DIR_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0);

export function isWithin(roots: readonly string[], real: string): boolean {
  return roots.some(
    (root) => real === root || real.startsWith(root.endsWith(path.sep) ? root : root + path.sep),
  );
}

/** Whether /proc/self/fd tells the real path of an open descriptor and reaches it (Linux with /proc mounted). */
function procFdWorks(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const fd = fs.openSync("/", DIR_FLAGS);
    try {
      return fs.readlinkSync(PROC + fd) === "/" && fs.statSync(`${PROC}${fd}/.`).ino === fs.statSync("/").ino;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}
const PROC_FD = procFdWorks();

function errnoOf(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === "ENOTDIR" ? "ENOENT" : (code ?? "EIO");
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed: nothing to release
  }
}

/** Where an open directory is now, or `undefined` when /proc cannot tell. */
function whereIs(fd: number): string | undefined {
  try {
    return fs.readlinkSync(PROC + fd);
  } catch {
    return undefined;
  }
}

/**
 * Opens the directory `dir` (following symlinks: what was opened is checked next), reads its real path from
 * its descriptor and refuses it (`OUTSIDE_ROOT`, closed) when that lies outside the roots. With a batch's
 * cache, a descriptor already open for `dir` is reused while it still sits at `dir` itself.
 */
export function openParent(roots: readonly string[], dir: string, dirs?: DirCache): Parent | Refused {
  if (!PROC_FD) {
    let real: string;
    try {
      real = fs.realpathSync.native(dir);
    } catch (err) {
      return { code: errnoOf(err) };
    }
    return isWithin(roots, real) ? { real, via: real, fd: null, owned: false } : { code: "OUTSIDE_ROOT" };
  }
  const cached = dirs?.get(dir);
  if (cached !== undefined && cached >= 0 && whereIs(cached) === dir) {
    return isWithin(roots, dir)
      ? { real: dir, via: PROC + cached, fd: cached, owned: false }
      : { code: "OUTSIDE_ROOT" };
  }
  let fd: number;
  try {
    fd = fs.openSync(dir, DIR_FLAGS);
  } catch (err) {
    return { code: errnoOf(err) };
  }
  const real = whereIs(fd);
  if (real === undefined || !isWithin(roots, real)) {
    closeQuietly(fd);
    return { code: real === undefined ? "EIO" : "OUTSIDE_ROOT" };
  }
  // Kept for the batch only while `dir` names it without any symlink (the common case: one open per folder).
  const keep = dirs !== undefined && real === dir;
  if (keep) {
    if (cached !== undefined && cached >= 0) closeQuietly(cached);
    dirs.set(dir, fd);
  }
  return { real, via: PROC + fd, fd, owned: !keep };
}

/** Releases a parent after the act (closes a descriptor no cache keeps). */
export function releaseParent(parent: Parent): void {
  if (parent.owned && parent.fd !== null) closeQuietly(parent.fd);
}

/**
 * Runs `act` with the path of `target`'s name inside its checked parent (`via/name`) and the path to report
 * (`real/name`); the parent is released afterwards.
 */
export function inParent<R>(
  roots: readonly string[],
  target: string,
  dirs: DirCache | undefined,
  act: (at: string, reported: string) => R,
): R | Refused {
  const base = path.basename(target);
  if (base === "" || base === "." || base === ".." || !path.isAbsolute(target))
    return { code: "OUTSIDE_ROOT" };
  const parent = openParent(roots, path.dirname(target), dirs);
  if ("code" in parent) return parent;
  try {
    return act(`${parent.via}/${base}`, path.join(parent.real, base));
  } finally {
    releaseParent(parent);
  }
}

/** Closes the directories a batch's cache opened and empties it. */
export function closeDirs(dirs: DirCache): void {
  for (const fd of dirs.values()) if (fd >= 0) closeQuietly(fd);
  dirs.clear();
}

/**
 * A folder held open (checked inside the roots) for several acts on names inside it: the copy path creates
 * its temp file, links it into place and removes it in the very folder it checked once, so no act of the
 * sequence can land in another folder swapped in at the path meanwhile. The caller releases it.
 */
export interface HeldFolder {
  /** The real path of the folder when it was checked. */
  real: string;
  /** Creates `name` (a new name only, never through a symlink) for writing; answers the descriptor. */
  create(name: string, mode: number): number;
  /** Links `from` to the new name `to`, both in this folder (never replaces: EEXIST). */
  link(from: string, to: string): void;
  /** Removes `name` when it is there; answers whether it was. */
  remove(name: string): boolean;
  /** fsyncs the folder (its new entries are durable). */
  sync(): void;
  release(): void;
}

const CREATE_FLAGS =
  fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

function plainName(name: string): string {
  if (name === "" || name === "." || name === ".." || name.includes(path.sep))
    throw new Error(`Not a name: ${name}`);
  return name;
}

/** Opens and checks the folder `dir` for a sequence of acts inside it (see {@link HeldFolder}). */
export function holdFolder(roots: readonly string[], dir: string): HeldFolder | Refused {
  const parent = openParent(roots, dir);
  if ("code" in parent) return parent;
  const at = (name: string) => `${parent.via}/${plainName(name)}`;
  return {
    real: parent.real,
    create: (name, mode) => fs.openSync(at(name), CREATE_FLAGS, mode),
    link: (from, to) => fs.linkSync(at(from), at(to)),
    remove(name) {
      try {
        fs.unlinkSync(at(name));
        return true;
      } catch {
        return false;
      }
    },
    sync() {
      const fd = parent.fd ?? fs.openSync(parent.real, DIR_FLAGS);
      try {
        fs.fsyncSync(fd);
      } finally {
        if (parent.fd === null) closeQuietly(fd);
      }
    },
    release: () => releaseParent(parent),
  };
}
