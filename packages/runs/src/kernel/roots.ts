import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** True when `path` is `root` or lies below it (both absolute and resolved; `..x` is a name, not a step up). */
export function isInsideRoot(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real paths of the roots that exist (a missing root confines nothing). */
export function realRoots(roots: readonly string[]): string[] {
  return roots.flatMap((root) => {
    try {
      return [realpathSync(resolve(root))];
    } catch {
      return [];
    }
  });
}
