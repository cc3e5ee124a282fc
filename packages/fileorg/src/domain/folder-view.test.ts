import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { buildFolderTree, foldersOfDir, placeDirOf } from "./folder-view.js";
import { isInside } from "./posix-path.js";

/** The folders of one path counted the row-by-row way (what the grouped view answered before). */
function chainOfPath(outputDir: string, path: string): string[] | undefined {
  if (!isInside(outputDir, path)) return undefined;
  const rel = posix.dirname(posix.relative(outputDir, path));
  const parts = rel === "." ? [] : rel.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

describe("the folders of a place", () => {
  const paths = [
    "/out/a.txt",
    "/out/docs/2024/a.txt",
    "/out/docs/2024/deep/er/b.txt",
    "/out-other/c.txt",
    "/outside/d.txt",
    "/e.txt",
    "/out/ünïcode dir/f g.txt",
  ];

  it.each(["/out", "/out/", "/"])(
    "agrees with counting the path itself, output directory %s",
    (outputDir) => {
      for (const path of paths) {
        expect(foldersOfDir(outputDir, placeDirOf(path))).toEqual(chainOfPath(outputDir, path));
      }
    },
  );

  it("keeps everything up to the last slash as the place's folder", () => {
    expect(placeDirOf("/out/docs/a.txt")).toBe("/out/docs/");
    expect(placeDirOf("/a.txt")).toBe("/");
  });
});

describe("the planned folder tree", () => {
  it("counts a group directly in its folder and in every folder above it, and the rest outside", () => {
    const tree = buildFolderTree("/out", [
      { dir: "/out/docs/2024/", files: 3, bytes: 30 },
      { dir: "/out/", files: 1, bytes: 5 },
      { dir: "/elsewhere/", files: 2, bytes: 7 },
      { dir: "/out/docs/", files: 0, bytes: 0 },
    ]);
    expect(tree.outside).toBe(2);
    expect(tree.folders).toEqual([
      { path: "", depth: 0, files: 1, total_files: 4, total_bytes: 35 },
      { path: "docs", depth: 1, files: 0, total_files: 3, total_bytes: 30 },
      { path: "docs/2024", depth: 2, files: 3, total_files: 3, total_bytes: 30 },
    ]);
  });
});
