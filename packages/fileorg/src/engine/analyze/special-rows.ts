import { lstat, readlink } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { pathKey } from "../../domain/template.js";
import { digestOf, type RowRecord, reviewOf } from "../manifest/index.js";
import { PROTECTED_PATH_REASON } from "../protected-paths.js";
import { type AnalyzePlan, buildRow } from "./rows.js";
import type { SpecialEntry } from "./walk.js";

/** The reason a symlink is listed and never moved. */
export const SYMLINK_REASON = "SYMLINK";
/** The reason a FIFO, socket or device is listed and never moved. */
export const SPECIAL_FILE_REASON = "SPECIAL_FILE";
export { PROTECTED_PATH_REASON } from "../protected-paths.js";

/** Where a symlink points (resolved against its folder), or undefined when it cannot be read. */
export async function linkTargetOf(path: string): Promise<string | undefined> {
  const raw = await readlink(path).catch(() => undefined);
  return raw === undefined ? undefined : resolve(dirname(path), raw);
}

async function describe(entry: SpecialEntry): Promise<{ code: string; message: string }> {
  if (entry.kind === "symlink") {
    const target = await linkTargetOf(entry.path);
    return {
      code: SYMLINK_REASON,
      message: `A symlink${target === undefined ? "" : ` to ${target}`}: never followed, never moved.`,
    };
  }
  if (entry.kind === "protected") {
    return {
      code: PROTECTED_PATH_REASON,
      message: "The server's own data (its data directory, database or key files): never read, never moved.",
    };
  }
  return {
    code: SPECIAL_FILE_REASON,
    message: "A special file (FIFO, socket or device): never read, never moved.",
  };
}

/**
 * The manifest row of a symlink or special file the walk passed over: listed, blocked (apply never moves
 * it), its target its own path, with the reason (`SYMLINK` or `SPECIAL_FILE`) as code and row error. Built
 * through the regular row builder (as an unreadable file) so it carries every field a row has.
 */
export async function buildSpecialRow(
  entry: SpecialEntry,
  plan: AnalyzePlan,
  jobId: string,
  rowId: string,
  at: number,
): Promise<RowRecord | undefined> {
  const info = await lstat(entry.path).catch(() => undefined);
  if (info === undefined) return undefined; // gone since the walk saw it
  const error = await describe(entry);
  const facts = {
    sourcePath: entry.path,
    size: info.isSymbolicLink() || info.isFile() ? info.size : 0,
    mtime: Math.trunc(info.mtimeMs),
    dev: info.dev,
    ino: info.ino,
    ctime: Math.trunc(info.ctimeMs),
    sha256: null,
    sniffedMime: undefined,
    sniffedExt: undefined,
    dateHints: [],
    meta: undefined,
    text: undefined,
    error,
  };
  const built = await buildRow(facts, plan, jobId, 0, rowId, at);
  const partial = {
    ...built,
    targetPath: entry.path,
    targetKey: pathKey(entry.path),
    action: "skip" as const,
    blocked: true,
    targetOccupied: false,
    reasonCodes: [error.code, ...built.reasonCodes.filter((c) => c !== "UNREADABLE" && c !== error.code)],
  };
  const { reviewBucket, reasonCodes } = reviewOf(partial, plan.confidenceThreshold);
  const row = { ...partial, reviewBucket, reasonCodes };
  return { ...row, planDigest: digestOf(row) };
}
