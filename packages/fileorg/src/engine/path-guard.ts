import { realpathSync } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../domain/template.js";
import { FileorgError, PathOutsideRootError } from "../errors.js";
import { isProtectedPath, resolveProtectedPaths } from "./protected-paths.js";

/** Allowed roots when none are configured: the home directory and the system temp directory. */
export function defaultAllowedRoots(): string[] {
  return [homedir(), tmpdir()];
}

/** Confines paths to allowed roots, comparing real paths (so `..` and symlink escapes are refused). */
export interface PathGuard {
  /** The real paths of the allowed roots (those that exist). */
  readonly roots: readonly string[];
  /** Resolves an existing directory; throws PATH_OUTSIDE_ROOT, SOURCE_NOT_FOUND or NOT_A_DIRECTORY. */
  resolveDirectory(path: string): Promise<string>;
  /**
   * Resolves a path that may not exist yet (an output directory, a target): its nearest existing ancestor
   * is resolved to a real path, the rest appended. Throws PATH_OUTSIDE_ROOT.
   */
  resolvePossiblyMissing(path: string): Promise<string>;
  /** True when a real path lies inside an allowed root. */
  isAllowed(realPath: string): boolean;
  /** The never-touch set (as given and as real paths): the server's data directory, database and key files. */
  readonly protectedPaths: readonly string[];
  /** True when a path is protected or inside a protected folder: never planned, moved or written. */
  isProtected(path: string): boolean;
}

/**
 * Builds a guard over `roots` (resolved to real paths once; missing roots are ignored). A path inside
 * `protectedPaths` resolves to PATH_PROTECTED even when it lies inside a root.
 */
export function createPathGuard(roots: readonly string[], protectedPaths: readonly string[] = []): PathGuard {
  const real: string[] = [];
  for (const root of roots) {
    try {
      real.push(realpathSync(resolve(root)));
    } catch {
      // a configured root that does not exist allows nothing
    }
  }
  const isAllowed = (p: string) => real.some((root) => isInside(root, p));
  const never = resolveProtectedPaths(protectedPaths);
  const isProtected = (p: string) => isProtectedPath(never, p);
  const checkProtected = (path: string, resolved: string) => {
    if (isProtected(resolved)) {
      throw new FileorgError(
        "PATH_PROTECTED",
        `The path ${path} is the server's own data (its data directory, database or key files); fileorg never plans, moves or writes there.`,
        { path },
      );
    }
  };
  const checkSyntax = (path: string) => {
    if (!isAbsolute(path)) {
      throw new FileorgError(
        "PATH_NOT_ABSOLUTE",
        `The path ${JSON.stringify(path)} is relative; give an absolute path (it starts with /).`,
        { path },
      );
    }
    if (path.includes("\0")) {
      throw new FileorgError("PATH_OUTSIDE_ROOT", `The path ${JSON.stringify(path)} must be absolute.`, {
        path,
        roots: real,
      });
    }
    // A `..` in the input is refused outright: nothing legitimate needs it.
    if (path.split(/[\\/]/).includes("..")) throw new PathOutsideRootError(path, real);
  };
  return {
    roots: real,
    isAllowed,
    protectedPaths: never,
    isProtected,
    async resolveDirectory(path) {
      checkSyntax(path);
      let resolved: string;
      try {
        resolved = await realpath(path);
      } catch {
        // Do not reveal whether a path outside the roots exists.
        if (!isAllowed(resolve(path))) throw new PathOutsideRootError(path, real);
        throw new FileorgError("SOURCE_NOT_FOUND", `The directory ${path} does not exist.`, { path });
      }
      if (!isAllowed(resolved)) throw new PathOutsideRootError(path, real);
      checkProtected(path, resolved);
      const info = await stat(resolved);
      if (!info.isDirectory()) {
        throw new FileorgError("NOT_A_DIRECTORY", `The path ${path} is not a directory.`, { path });
      }
      return resolved;
    },
    async resolvePossiblyMissing(path) {
      checkSyntax(path);
      const rest: string[] = [];
      let current = resolve(path);
      for (;;) {
        try {
          await lstat(current);
          const resolved = join(await realpath(current), ...rest.reverse());
          if (!isAllowed(resolved)) throw new PathOutsideRootError(path, real);
          checkProtected(path, resolved);
          return resolved;
        } catch (err) {
          if (err instanceof FileorgError) throw err;
          const parent = dirname(current);
          if (parent === current) throw new PathOutsideRootError(path, real);
          rest.push(basename(current));
          current = parent;
        }
      }
    },
  };
}
