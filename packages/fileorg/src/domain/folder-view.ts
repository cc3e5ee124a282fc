import { isInside } from "./posix-path.js";

/** Rows counted together: the folder their files will be directly in (ending with `/`), how many, their bytes. */
export interface PlaceGroup {
  dir: string;
  files: number;
  bytes: number;
}

/** One folder of the planned tree: files directly in it, files in it and every subfolder, their bytes. */
export interface FolderCount {
  path: string;
  depth: number;
  files: number;
  total_files: number;
  total_bytes: number;
}

/**
 * The folders, relative to the output directory and outermost first, that hold a file directly in `dir`
 * (`[]` in the output directory itself; `<out>/a/b/` → `["a", "a/b"]`), or `undefined` when such a file
 * is outside the output directory. A file named like the output directory's own path is the caller's to
 * count at the root (see `placeDirOf`).
 */
export function foldersOfDir(outputDir: string, dir: string): string[] | undefined {
  // A file `dir + name` (a name has no `/`, `dir` ends with one) is inside exactly when `dir` is.
  if (!dir.endsWith("/") || !isInside(outputDir, dir)) return undefined;
  const parts = dir
    .slice(outputDir.length)
    .split("/")
    .filter((part) => part !== "");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/**
 * The planned folder tree of a manifest from its rows counted by place, sorted by path: each group's files
 * count directly in their folder and in every folder above it up to the output directory (`""`); groups
 * outside the output directory only count in `outside`. Pure: the same answer as counting row by row.
 */
export function buildFolderTree(
  outputDir: string,
  groups: readonly PlaceGroup[],
): { folders: FolderCount[]; outside: number } {
  const folders = new Map<string, { files: number; total: number; bytes: number }>();
  const bump = (path: string, direct: boolean, g: PlaceGroup) => {
    const f = folders.get(path) ?? { files: 0, total: 0, bytes: 0 };
    if (direct) f.files += g.files;
    f.total += g.files;
    f.bytes += g.bytes;
    folders.set(path, f);
  };
  let outside = 0;
  for (const g of groups) {
    if (g.files === 0) continue;
    const chain = foldersOfDir(outputDir, g.dir);
    if (chain === undefined) {
      outside += g.files;
      continue;
    }
    bump("", chain.length === 0, g);
    for (const [i, path] of chain.entries()) bump(path, i === chain.length - 1, g);
  }
  return {
    outside,
    folders: [...folders.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, f]) => ({
        path,
        depth: path === "" ? 0 : path.split("/").length,
        files: f.files,
        total_files: f.total,
        total_bytes: f.bytes,
      })),
  };
}

/**
 * The folder SQLite's `place_dir` gives a path: everything up to and including its last `/` (what
 * `rtrim(path, replace(path, '/', ''))` keeps).
 */
export function placeDirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}
