import * as fs from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import {
  formatDeletionDate,
  formatTrashInfo,
  parseTrashInfo,
  TRASHINFO_EXTENSION,
  trashNameCandidate,
} from "../domain/trash-info.js";

/**
 * Where trashed files go (freedesktop.org Trash specification): the home trash for files on its device,
 * else the trash of the file's top directory (mount point).
 */
export interface TrashOptions {
  /** The home trash (`$XDG_DATA_HOME/Trash`, default `~/.local/share/Trash`). */
  homeTrash: string;
  /** The user id naming top-directory trashes (`.Trash/$uid`, `.Trash-$uid`). */
  uid: number;
}

/** The default home trash: `$XDG_DATA_HOME/Trash` when that is an absolute path, else `~/.local/share/Trash`. */
export function defaultHomeTrash(env: Record<string, string | undefined>): string {
  const xdg = env.XDG_DATA_HOME ?? "";
  const base = isAbsolute(xdg) ? xdg : join(homedir(), ".local", "share");
  return join(base, "Trash");
}

/** The trash options of an engine: the given home trash, else the environment's. */
export function trashOptionsOf(
  homeTrash: string | undefined,
  env: Record<string, string | undefined>,
): TrashOptions {
  return { homeTrash: homeTrash ?? defaultHomeTrash(env), uid: process.getuid?.() ?? 0 };
}

/** A trash directory, by its real path: files go to `files/`, their info to `info/`. */
export interface TrashDir {
  root: string;
  /** The top directory a top-directory trash belongs to (its `Path=` keys are relative to it); null: home. */
  topdir: string | null;
}

/** Why a file cannot be trashed. */
export class TrashError extends Error {
  constructor(
    readonly code: "TRASH_UNAVAILABLE",
    message: string,
  ) {
    super(message);
  }
}

function lstatOrNull(path: string): fs.Stats | null {
  try {
    return fs.lstatSync(path);
  } catch {
    return null;
  }
}

/** A directory made (mode 0700) or found: a real directory, never a symlink. */
function ensureDir(path: string, recursive: boolean): void {
  const seen = lstatOrNull(path);
  if (seen === null) {
    fs.mkdirSync(path, { recursive, mode: 0o700 });
    return;
  }
  if (!seen.isDirectory() || seen.isSymbolicLink())
    throw new TrashError("TRASH_UNAVAILABLE", `${path} is not a directory.`);
}

/** Makes `files/` and `info/` under a trash root; answers the root's real path. */
function ensureTrash(root: string, recursive: boolean): string {
  ensureDir(root, recursive);
  const real = fs.realpathSync(root);
  ensureDir(join(real, "files"), false);
  ensureDir(join(real, "info"), false);
  return real;
}

/** The device of the nearest existing ancestor of `path`. */
function deviceOf(path: string): number | undefined {
  for (let p = path; ; p = dirname(p)) {
    const st = lstatOrNull(p);
    if (st !== null) return st.dev;
    if (dirname(p) === p) return undefined;
  }
}

/** The top directory (mount point) of a file on device `dev`: the highest ancestor still on that device. */
export function topdirOf(file: string, dev: number): string {
  let dir = dirname(file);
  for (;;) {
    const parent = dirname(dir);
    if (parent === dir) return dir;
    const st = lstatOrNull(parent);
    if (st === null || st.dev !== dev) return dir;
    dir = parent;
  }
}

/**
 * The trash of a top directory: `$topdir/.Trash/$uid` when `$topdir/.Trash` is a directory with the sticky
 * bit and not a symlink (the spec's administrator-made trash), else `$topdir/.Trash-$uid` (made if needed,
 * and refused when it is not a directory of this user).
 */
export function topdirTrash(topdir: string, uid: number): TrashDir {
  const shared = join(topdir, ".Trash");
  const st = lstatOrNull(shared);
  if (st?.isDirectory() === true && !st.isSymbolicLink() && (st.mode & 0o1000) !== 0) {
    try {
      return { root: ensureTrash(join(shared, String(uid)), false), topdir };
    } catch {
      // the spec: when the shared trash cannot be used, fall back to the per-user one
    }
  }
  const own = join(topdir, `.Trash-${uid}`);
  const seen = lstatOrNull(own);
  if (seen !== null && (!seen.isDirectory() || seen.isSymbolicLink() || seen.uid !== uid))
    throw new TrashError("TRASH_UNAVAILABLE", `${own} is not a trash directory of user ${uid}.`);
  try {
    return { root: ensureTrash(own, false), topdir };
  } catch (err) {
    throw new TrashError("TRASH_UNAVAILABLE", `Cannot use ${own} as a trash: ${(err as Error).message}`);
  }
}

/** The trash a file on device `dev` goes to: the home trash on its device, else its top directory's. */
export function trashDirFor(file: string, dev: number, options: TrashOptions): TrashDir {
  if (deviceOf(options.homeTrash) === dev) {
    try {
      return { root: ensureTrash(options.homeTrash, true), topdir: null };
    } catch (err) {
      if (err instanceof TrashError) throw err;
      throw new TrashError("TRASH_UNAVAILABLE", `Cannot use ${options.homeTrash}: ${(err as Error).message}`);
    }
  }
  return topdirTrash(topdirOf(file, dev), options.uid);
}

/** Where one trashed file and its info live. */
export interface TrashSlot {
  root: string;
  /** `root/files/<name>`: where the file goes. */
  file: string;
  /** `root/info/<name>.trashinfo`. */
  info: string;
  /** The `Path=` the info names: absolute for the home trash, relative to the top directory otherwise. */
  infoPath: string;
}

/** The info file of a trashed file at `root/files/<name>`. */
export function infoPathOf(trashedFile: string): string {
  return join(dirname(dirname(trashedFile)), "info", `${basename(trashedFile)}${TRASHINFO_EXTENSION}`);
}

/** The trash root of a trashed file at `root/files/<name>`. */
export function trashRootOf(trashedFile: string): string {
  return dirname(dirname(trashedFile));
}

/**
 * A free slot for `source` in `trash`: the first name (`name`, `stem.2.ext`, …) with neither an info file
 * nor a file in the trash and not handed out in this apply (`taken`). The info file itself is created with
 * O_EXCL when the file moves, so a name taken meanwhile is never overwritten.
 */
export function chooseTrashSlot(trash: TrashDir, source: string, taken: Set<string>): TrashSlot {
  const base = basename(source);
  for (let n = 1; n < 100_000; n++) {
    const name = trashNameCandidate(base, n);
    const file = join(trash.root, "files", name);
    const info = join(trash.root, "info", `${name}${TRASHINFO_EXTENSION}`);
    if (taken.has(file) || lstatOrNull(file) !== null || lstatOrNull(info) !== null) continue;
    taken.add(file);
    return {
      root: trash.root,
      file,
      info,
      infoPath: trash.topdir === null ? source : relative(trash.topdir, source),
    };
  }
  throw new TrashError("TRASH_UNAVAILABLE", `No free name in ${trash.root} for ${base}.`);
}

/** The local `DeletionDate=` of a time (ms since the epoch, read from the engine's clock). */
export function deletionDateOf(at: number): string {
  const d = new Date(at);
  return formatDeletionDate({
    year: d.getFullYear(),
    month: d.getMonth() + 1,
    day: d.getDate(),
    hour: d.getHours(),
    minute: d.getMinutes(),
    second: d.getSeconds(),
  });
}

/** Where {@link writeTrashInfo} writes an info before linking it into place (ours by its name). */
export function partialOf(info: string): string {
  return `${info}.partial`;
}

/** Fsyncs a folder, so a name linked or removed in it survives a crash. */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, fs.constants.O_RDONLY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `info` atomically and exclusively (mode 0600, fsynced): the text goes to `<info>.partial` first,
 * which is then hard-linked to `info` — a link never replaces an existing name, so something already there
 * answers `exists` and is never overwritten, and a crash leaves either no info or a whole one (never an
 * empty or cut one), plus at most the partial file, which recovery removes.
 */
export function writeTrashInfo(info: string, text: string): "written" | "exists" {
  const partial = partialOf(info);
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW;
  const fd = fs.openSync(partial, flags, 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(partial, info);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw err;
  } finally {
    fs.rmSync(partial, { force: true });
  }
  syncDir(dirname(info));
  return "written";
}

/** Removes the partial info a crash may have left while writing the info of `trashedFile`. */
export function removePartialTrashInfo(trashedFile: string): void {
  fs.rmSync(partialOf(infoPathOf(trashedFile)), { force: true });
}

/** The `.trashinfo` text of a slot deleted at `at`. */
export function trashInfoText(slot: Pick<TrashSlot, "infoPath">, at: number): string {
  return formatTrashInfo(slot.infoPath, deletionDateOf(at));
}

/**
 * Removes the info file of `trashedFile` when it is a trash info naming `original` (absolute, or relative
 * to its top directory) — never another entry's. Answers whether it is gone.
 */
export function removeTrashInfo(trashedFile: string, original: string): boolean {
  const info = infoPathOf(trashedFile);
  let text: string;
  try {
    const fd = fs.openSync(info, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      text = fs.readFileSync(fd, "utf8");
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
  const parsed = parseTrashInfo(text);
  if (parsed === undefined) return false;
  const ours =
    parsed.path === original || (!parsed.path.startsWith("/") && original.endsWith(`/${parsed.path}`));
  if (!ours) return false;
  try {
    fs.unlinkSync(info);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}
