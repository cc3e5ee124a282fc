import { realpath } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { isInside } from "../domain/posix-path.js";
import { PathOutsideRootError } from "../errors.js";
import type { PathGuard } from "./path-guard.js";

/**
 * The roots paths may lie in: the environment's roots (real paths) narrowed by the runtime setting
 * `allowed_roots` — each pair keeps the deeper of the two when one contains the other, so the settings can
 * narrow the environment's roots but never widen them. No settings roots: the environment's roots.
 */
export function intersectRoots(envRoots: readonly string[], settingsRoots: readonly string[]): string[] {
  if (settingsRoots.length === 0) return [...envRoots];
  const out: string[] = [];
  for (const s of settingsRoots) {
    for (const e of envRoots) {
      const deeper = isInside(e, s) ? s : isInside(s, e) ? e : undefined;
      if (deeper !== undefined && !out.includes(deeper)) out.push(deeper);
    }
  }
  return out;
}

/** The real paths of the settings' roots (a root that does not exist allows nothing). */
async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    if (!isAbsolute(root)) continue;
    try {
      out.push(await realpath(resolve(root)));
    } catch {
      // a missing root allows nothing
    }
  }
  return out;
}

/** The effective roots: the guard's (environment) roots ∩ the runtime settings' `allowed_roots`. */
export async function effectiveRootsOf(
  guard: PathGuard,
  settingsRoots: readonly string[],
): Promise<string[]> {
  if (settingsRoots.length === 0) return [...guard.roots];
  return intersectRoots(guard.roots, await realRoots(settingsRoots));
}

/**
 * Throws PATH_OUTSIDE_ROOT unless each of `paths` (already resolved to real paths by the guard) lies inside
 * the effective roots — the settings' `allowed_roots` (from a new analyze's parameters) narrowing the
 * environment's.
 */
export async function assertInsideEffectiveRoots(
  guard: PathGuard,
  settingsRoots: unknown,
  paths: readonly string[],
): Promise<void> {
  if (!Array.isArray(settingsRoots) || settingsRoots.length === 0) return;
  const roots = await effectiveRootsOf(
    guard,
    settingsRoots.filter((r): r is string => typeof r === "string"),
  );
  for (const path of paths) {
    if (!roots.some((root) => isInside(root, path))) throw new PathOutsideRootError(path, roots);
  }
}
