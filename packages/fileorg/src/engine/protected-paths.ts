import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { RowError } from "../domain/manifest.js";
import { isInside } from "../domain/posix-path.js";

/** The reason code (and apply error code) of a path the engine never plans or moves: the server's own data. */
export const PROTECTED_PATH_REASON = "PROTECTED_PATH";

/** `path` with its nearest existing ancestor resolved to a real path (symlinks), the rest appended. */
function realPathOf(path: string): string {
  const rest: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      rest.push(basename(current));
      current = parent;
    }
  }
}

/**
 * The never-touch set: each path as given (made absolute) and as its real path, without duplicates. A path
 * that does not exist yet is resolved through its nearest existing ancestor, so a data directory made
 * after the engine still matches.
 */
export function resolveProtectedPaths(paths: readonly string[]): string[] {
  const out = new Set<string>();
  for (const path of paths) {
    if (path === "") continue;
    out.add(resolve(path));
    out.add(realPathOf(path));
  }
  return [...out];
}

/** True when `path` is one of `protectedPaths` or lies inside one (a protected folder covers its contents). */
export function isProtectedPath(protectedPaths: readonly string[], path: string): boolean {
  return protectedPaths.some((p) => isInside(p, path));
}

/** Why apply must not move a row whose source or target is protected (a plan may predate the setting). */
export function protectedRowProblem(
  isProtected: (path: string) => boolean,
  row: { sourcePath: string; targetPath: string },
): RowError | undefined {
  const hit = isProtected(row.sourcePath)
    ? row.sourcePath
    : isProtected(row.targetPath)
      ? row.targetPath
      : undefined;
  if (hit === undefined) return undefined;
  return {
    code: PROTECTED_PATH_REASON,
    message: `${hit} is the server's own data (its data directory, database or key files): never moved or written.`,
  };
}
