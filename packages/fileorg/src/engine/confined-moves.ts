import { createHash } from "node:crypto";
import { close, fstat, fsync, futimes, read, write } from "node:fs";
import { basename, dirname, sep } from "node:path";
import { promisify } from "node:util";
import type { RowError } from "../domain/manifest.js";
import { confinedFs, type FileFacts, type HeldFolder, type SourceIdentity } from "./confined-fs.js";
import type { PathStat, PoolScope } from "./inspect-pool.js";
import { MoveError } from "./journal.js";

const readAsync = promisify(read);
const writeAsync = promisify(write);
const closeAsync = promisify(close);
const fsyncAsync = promisify(fsync);
const futimesAsync = promisify(futimes);
const fstatAsync = promisify(fstat);

/** Called with a copy's device and inode once it is verified, before it is linked into place. */
export type BeforeLink = (inode: { dev: number; ino: number }) => Promise<void>;

/** The identity a row recorded at analyze (size and mtime always; inode and ctime on newer rows). */
export function identityOfRow(row: {
  size: number;
  mtime: number;
  sourceDev: number | null;
  sourceIno: number | null;
  sourceCtime: number | null;
}): SourceIdentity {
  return { dev: row.sourceDev, ino: row.sourceIno, size: row.size, mtime: row.mtime, ctime: row.sourceCtime };
}

/** The facts of a file as an identity to check right before it moves. */
export function identityOfFacts(facts: FileFacts): SourceIdentity {
  return { dev: facts.dev, ino: facts.ino, size: facts.size, mtime: facts.mtime, ctime: facts.ctime };
}

/** Why a row's source cannot move, from a file thread's confined lstat, or `undefined` when it still is the analyzed file. */
export function sourceProblem(
  seen: PathStat | undefined,
  row: { sourcePath: string; size: number; mtime: number } & Parameters<typeof identityOfRow>[0],
): RowError | undefined {
  if (seen !== undefined && seen !== null && "outside" in seen) {
    return { code: "OUTSIDE_ROOT", message: `${row.sourcePath} now resolves outside the source directory.` };
  }
  if (seen === undefined || seen === null || !seen.isFile) {
    return { code: "SOURCE_MISSING", message: `${row.sourcePath} is gone since analyze.` };
  }
  if (!confinedFs.matchesIdentity(identityOfRow(row), seen)) {
    return {
      code: "SOURCE_CHANGED",
      message: `${row.sourcePath} changed since analyze (another file, or its size, mtime or ctime).`,
    };
  }
  return undefined;
}

/**
 * The roots a folder operation (mkdir/rmdir) is confined to: `scopeDir` itself for folders inside it; the
 * allowed roots for `scopeDir` and its ancestors (an output folder apply had to create).
 */
export function folderScope(allowedRoots: readonly string[], scopeDir: string, dir: string): string[] {
  const isAncestor = scopeDir === dir || scopeDir.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
  if (isAncestor) return [...allowedRoots];
  return confinedFs.isWithin(allowedRoots, scopeDir) ? [scopeDir] : [];
}

async function hashDescriptor(fd: number): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(1 << 20);
  let position = 0;
  for (;;) {
    const { bytesRead } = await readAsync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return hash.digest("hex");
}

/**
 * The SHA-256 of a file read through the confined layer (real parent inside `roots`, `O_NOFOLLOW`), with
 * the facts of the very descriptor read; or the refusal / errno code.
 */
export async function hashConfined(
  roots: readonly string[],
  path: string,
): Promise<{ sha256: string; facts: FileFacts } | { code: string }> {
  const opened = confinedFs.openReadIn(roots, path);
  if (opened.code !== undefined) return { code: opened.code };
  try {
    return { sha256: await hashDescriptor(opened.fd), facts: opened.facts };
  } catch (err) {
    return { code: (err as NodeJS.ErrnoException).code ?? "EIO" };
  } finally {
    await closeAsync(opened.fd).catch(() => undefined);
  }
}

async function copyDescriptor(from: number, to: number): Promise<void> {
  const buffer = Buffer.allocUnsafe(1 << 20);
  let position = 0;
  for (;;) {
    const { bytesRead } = await readAsync(from, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    let written = 0;
    while (written < bytesRead) {
      const { bytesWritten } = await writeAsync(to, buffer, written, bytesRead - written, position + written);
      written += bytesWritten;
    }
    position += bytesRead;
  }
}

function refusal(code: string, from: string, to: string): MoveError {
  if (code === "OUTSIDE_ROOT")
    return new MoveError("OUTSIDE_ROOT", `${from} or ${to} resolves outside the roots.`);
  if (code === "ENOENT") return new MoveError("SOURCE_MISSING", `${from} is gone.`);
  if (code === "NOT_A_FILE") return new MoveError("SOURCE_CHANGED", `${from} is no longer a regular file.`);
  return new MoveError("IO_ERROR", `Cannot move ${from} to ${to} (${code}).`);
}

/** Copies to the temp name, verifies, links it into place, removes the temp name and syncs the folder. */
async function copyInto(
  folder: HeldFolder,
  source: { fd: number; facts: FileFacts },
  move: { from: string; to: string; temp: string; sha256: string | null },
  beforeLink?: BeforeLink,
): Promise<void> {
  const { from, to } = move;
  const temp = basename(move.temp);
  let out: number;
  try {
    out = folder.create(temp, 0o600);
  } catch (err) {
    throw new MoveError("IO_ERROR", `Cannot copy ${from} to ${to} (${errnoOf(err)}).`);
  }
  try {
    await copyDescriptor(source.fd, out);
    const seconds = (ms: number) => ms / 1000;
    await futimesAsync(out, seconds(Date.now()), seconds(source.facts.mtime));
    await fsyncAsync(out);
    if (move.sha256 !== null && (await hashDescriptor(out)) !== move.sha256) {
      throw new MoveError("HASH_MISMATCH", `The copy of ${from} does not have the recorded SHA-256.`);
    }
    if (beforeLink !== undefined) {
      const own = await fstatAsync(out);
      await beforeLink({ dev: own.dev, ino: own.ino });
    }
    try {
      folder.link(temp, basename(to));
    } catch (err) {
      const code = errnoOf(err);
      if (code === "EEXIST") throw new MoveError("TARGET_EXISTS", `Something already exists at ${to}.`);
      throw refusal(code, from, to);
    }
  } finally {
    await closeAsync(out).catch(() => undefined);
    folder.remove(temp);
  }
  try {
    folder.sync();
  } catch {
    // the link is in place; a folder that cannot be synced here is synced by the system later
  }
}

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? "EIO";
}

/**
 * Copies the recorded source to a temp name next to the target (opened without following symlinks, real
 * parents inside the roots), keeps its times, fsyncs, verifies the copy against `sha256`, links it into
 * place (never replacing anything), then removes the source only if its path still is the inode copied.
 */
export async function copyMoveConfined(
  move: { from: string; to: string; temp: string; sha256: string | null; identity: SourceIdentity | null },
  scope: PoolScope,
): Promise<"copied"> {
  const { from, to } = move;
  const source = confinedFs.openReadIn(scope.source, from);
  if (source.code !== undefined) throw refusal(source.code, from, to);
  try {
    if (!confinedFs.matchesIdentity(move.identity, source.facts)) {
      throw new MoveError("SOURCE_CHANGED", `${from} is not the file analyzed (changed or replaced).`);
    }
    // The temp file is created, linked into place and removed in the one target folder checked here.
    const folder = confinedFs.holdFolder(scope.target, dirname(to));
    if ("code" in folder) throw refusal(folder.code, from, to);
    try {
      await copyInto(folder, source, move);
    } finally {
      folder.release();
    }
    // Only the inode that was copied leaves the source path; a file swapped in meanwhile stays.
    confinedFs.unlinkIn(scope.source, from, source.facts);
    return "copied";
  } finally {
    await closeAsync(source.fd).catch(() => undefined);
  }
}

/**
 * Copies the recorded source to a temp name next to the target (opened without following symlinks, real
 * parents inside the roots; still the analyzed file), keeps its times, fsyncs, checks the copy's SHA-256
 * against the source's (the recorded one, which the identity check ties to this file), and links it into
 * place (never replacing anything). The source stays; a crash leaves at most the temp name, never a part
 * file under the target's name.
 */
export async function copyConfined(
  copy: { from: string; to: string; temp: string; sha256: string; identity: SourceIdentity | null },
  scope: PoolScope,
  beforeLink: BeforeLink,
): Promise<"copied"> {
  const { from, to } = copy;
  const source = confinedFs.openReadIn(scope.source, from);
  if (source.code !== undefined) throw refusal(source.code, from, to);
  try {
    if (!confinedFs.matchesIdentity(copy.identity, source.facts)) {
      throw new MoveError("SOURCE_CHANGED", `${from} is not the file analyzed (changed or replaced).`);
    }
    const folder = confinedFs.holdFolder(scope.target, dirname(to));
    if ("code" in folder) throw refusal(folder.code, from, to);
    try {
      await copyInto(folder, source, copy, beforeLink);
    } finally {
      folder.release();
    }
    return "copied";
  } finally {
    await closeAsync(source.fd).catch(() => undefined);
  }
}
