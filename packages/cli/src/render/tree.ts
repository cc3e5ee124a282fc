import type { ManifestFolder } from "@vetted/fileorg";
import type { Colors } from "picocolors/types";
import type { z } from "zod";
import { formatBytes, plural } from "./style.js";

type Folder = z.infer<typeof ManifestFolder>;

interface Node {
  name: string;
  folder: Folder | undefined;
  children: Map<string, Node>;
}

function buildTree(folders: readonly Folder[]): Node {
  const root: Node = { name: "", folder: undefined, children: new Map() };
  for (const folder of folders) {
    if (folder.path === "") {
      root.folder = folder;
      continue;
    }
    let node = root;
    for (const part of folder.path.split("/")) {
      let child = node.children.get(part);
      if (child === undefined) {
        child = { name: part, folder: undefined, children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.folder = folder;
  }
  return root;
}

function renderChildren(node: Node, prefix: string, c: Colors, lines: string[]): void {
  const children = [...node.children.values()].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  children.forEach((child, i) => {
    const last = i === children.length - 1;
    const total = child.folder?.total_files ?? 0;
    lines.push(`${prefix}${last ? "└── " : "├── "}${c.bold(`${child.name}/`)} ${c.dim(String(total))}`);
    renderChildren(child, `${prefix}${last ? "    " : "│   "}`, c, lines);
  });
}

/** The target folder tree with the number of files that land in each folder (and its subfolders). */
export function renderTree(outputDir: string, folders: readonly Folder[], c: Colors): string[] {
  const root = buildTree(folders);
  const total = root.folder?.total_files ?? 0;
  const bytes = root.folder?.total_bytes ?? 0;
  const lines = [`${c.bold(outputDir)} ${c.dim(`${plural(total, "file")}, ${formatBytes(bytes)}`)}`];
  renderChildren(root, "", c, lines);
  return lines;
}
