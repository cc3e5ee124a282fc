/**
 * The planned target folder tree of a manifest, as the server's grouped view lists it (`folders`: every
 * folder under the output directory with its depth and counts, sorted by path), turned into the visible
 * lines of a collapsible tree.
 */
import type { ManifestView } from "../types.js";

/** One folder as `GET /api/jobs/{id}/manifest/view` lists it (the server's type). */
export type FolderCount = ManifestView["folders"][number];

/** A visible line of the tree. */
export interface TreeLine extends FolderCount {
  /** The folder's own name (the output folder's name for the root). */
  name: string;
  hasChildren: boolean;
  expanded: boolean;
}

function parentOf(path: string): string | undefined {
  if (path === "") return undefined;
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i);
}

/**
 * The lines to show: a folder is visible when every folder above it is expanded. Folders are ordered
 * depth-first (each folder right before its sub-folders) whatever order `folders` comes in.
 */
export function visibleTree(
  folders: readonly FolderCount[],
  collapsed: ReadonlySet<string>,
  rootName: string,
): TreeLine[] {
  const children = new Map<string, FolderCount[]>();
  let root: FolderCount | undefined;
  for (const f of folders) {
    const parent = parentOf(f.path);
    if (parent === undefined) {
      root = f;
      continue;
    }
    const list = children.get(parent) ?? [];
    list.push(f);
    children.set(parent, list);
  }
  if (root === undefined) return [];
  const lines: TreeLine[] = [];
  const visit = (f: FolderCount) => {
    const kids = [...(children.get(f.path) ?? [])].sort((a, b) => (a.path < b.path ? -1 : 1));
    const expanded = !collapsed.has(f.path);
    const name = f.path === "" ? rootName : f.path.slice(f.path.lastIndexOf("/") + 1);
    lines.push({ ...f, name, hasChildren: kids.length > 0, expanded });
    if (expanded) for (const k of kids) visit(k);
  };
  visit(root);
  return lines;
}

/** The text filter that shows the rows planned into `folder` (and its sub-folders). */
export function folderFilterText(outputDir: string, folder: string): string {
  const base = outputDir.replace(/\/+$/, "");
  return folder === "" ? `${base}/` : `${base}/${folder}/`;
}

/** Collapses every folder deeper than `depth` (a large tree opens two levels deep). */
export function collapseBelow(folders: readonly FolderCount[], depth: number): Set<string> {
  return new Set(folders.filter((f) => f.depth >= depth).map((f) => f.path));
}

/** Toggles one folder in the collapsed set (a new set: state stays immutable). */
export function toggleFolder(collapsed: ReadonlySet<string>, path: string): Set<string> {
  const next = new Set(collapsed);
  if (next.has(path)) next.delete(path);
  else next.add(path);
  return next;
}
