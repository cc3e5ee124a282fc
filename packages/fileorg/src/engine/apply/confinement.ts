import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { isInside } from "../../domain/posix-path.js";
import { lstatOrUndefined } from "./group.js";

/** Directories to create (shallowest first) so that `dir` exists; `known` caches directories seen. */
export async function missingDirectories(dir: string, known: Set<string>): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  while (!known.has(current)) {
    const info = await lstatOrUndefined(current);
    if (info?.isDirectory()) {
      known.add(current);
      break;
    }
    if (info !== undefined) break; // a file where a folder should be: the move will fail, nothing to create
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return missing.reverse();
}

/**
 * A check that a folder really lies inside `root` once symlinks are resolved (its nearest existing ancestor
 * is resolved; the rest is appended), cached per folder: a symlinked folder placed inside the output after
 * analyze must not carry a move outside it.
 */
export function createConfinement(root: string): (dir: string) => Promise<boolean> {
  const cache = new Map<string, Promise<boolean>>();
  const resolveInside = async (dir: string): Promise<boolean> => {
    const rest: string[] = [];
    let current = dir;
    for (;;) {
      const real = await realpath(current).catch(() => undefined);
      if (real !== undefined) return isInside(root, join(real, ...rest.reverse()));
      const parent = dirname(current);
      if (parent === current) return false;
      rest.push(basename(current));
      current = parent;
    }
  };
  return (dir) => {
    let found = cache.get(dir);
    if (found === undefined) {
      found = resolveInside(dir);
      cache.set(dir, found);
    }
    return found;
  };
}
