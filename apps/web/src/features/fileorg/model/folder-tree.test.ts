import { describe, expect, it } from "vitest";
import {
  collapseBelow,
  type FolderCount,
  folderFilterText,
  toggleFolder,
  visibleTree,
} from "./folder-tree.js";

const f = (path: string, files: number, total: number): FolderCount => ({
  path,
  depth: path === "" ? 0 : path.split("/").length,
  files,
  total_files: total,
  total_bytes: total * 10,
});

const FOLDERS = [
  f("images/2023", 2, 2),
  f("", 0, 5),
  f("documents", 0, 3),
  f("documents/2024", 3, 3),
  f("images", 0, 2),
];

describe("visibleTree", () => {
  it("orders folders depth-first, each before its sub-folders, and names them", () => {
    const lines = visibleTree(FOLDERS, new Set(), "Sorted");
    expect(lines.map((l) => [l.path, l.name, l.hasChildren])).toEqual([
      ["", "Sorted", true],
      ["documents", "documents", true],
      ["documents/2024", "2024", false],
      ["images", "images", true],
      ["images/2023", "2023", false],
    ]);
  });

  it("hides the sub-folders of a collapsed folder, and shows them again when toggled", () => {
    const collapsed = toggleFolder(new Set(), "documents");
    const lines = visibleTree(FOLDERS, collapsed, "Sorted");
    expect(lines.map((l) => l.path)).toEqual(["", "documents", "images", "images/2023"]);
    expect(lines[1]?.expanded).toBe(false);
    expect(visibleTree(FOLDERS, toggleFolder(collapsed, "documents"), "Sorted")).toHaveLength(5);
  });

  it("shows nothing for a manifest without folders, and collapses deep levels", () => {
    expect(visibleTree([], new Set(), "x")).toEqual([]);
    expect(visibleTree(FOLDERS, collapseBelow(FOLDERS, 1), "Sorted").map((l) => l.path)).toEqual([
      "",
      "documents",
      "images",
    ]);
  });

  it("filters on a folder by its absolute path prefix", () => {
    expect(folderFilterText("/out/", "images/2023")).toBe("/out/images/2023/");
    expect(folderFilterText("/out", "")).toBe("/out/");
  });
});
