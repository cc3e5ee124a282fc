import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { isInsideRoot, realRoots } from "../../kernel/roots.js";
import {
  ArtifactNotFoundError,
  ArtifactTooLargeError,
  PathOutsideRootError,
} from "./reconstruction-errors.js";

/**
 * The real path of a file a request names, confined to `roots`: it must be absolute, hold no `..`
 * segment, lie inside a root as written, and still lie inside one once symlinks are resolved; it must be a
 * regular file of at most `maxBytes`.
 * @throws PATH_OUTSIDE_ROOT, ARTIFACT_NOT_FOUND, ARTIFACT_TOO_LARGE
 */
export function confineArtifactPath(path: string, roots: readonly string[], maxBytes: number): string {
  if (!isAbsolute(path)) throw new PathOutsideRootError(path, "the path must be absolute");
  if (path.split(/[\\/]+/).includes("..")) throw new PathOutsideRootError(path, "it contains a .. segment");
  const allowed = realRoots(roots);
  const lexical = resolve(path);
  const candidates = [...allowed, ...roots.map((r) => resolve(r))];
  if (!candidates.some((root) => isInsideRoot(root, lexical))) {
    throw new PathOutsideRootError(path, "it is outside the allowed roots and the data directory");
  }
  let real: string;
  try {
    real = realpathSync(lexical);
  } catch {
    throw new ArtifactNotFoundError(`No file at ${path}.`);
  }
  if (!allowed.some((root) => isInsideRoot(root, real))) {
    throw new PathOutsideRootError(path, "a symbolic link leads outside the allowed roots");
  }
  const stat = statSync(real);
  if (!stat.isFile()) throw new ArtifactNotFoundError(`${path} is not a file.`);
  if (stat.size > maxBytes) throw new ArtifactTooLargeError(path, stat.size, maxBytes);
  return real;
}
