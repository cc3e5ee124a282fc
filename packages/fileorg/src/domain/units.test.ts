import { describe, expect, it } from "vitest";
import { chooseOriginal, hasCopyMarker } from "./originals.js";
import { distinctUnitTarget, type ListingEntry, recogniseUnit } from "./units.js";

const AT = Date.UTC(2026, 0, 1);
const files = (...names: string[]): ListingEntry[] => names.map((name) => ({ name, kind: "file" }));
const dirs = (...names: string[]): ListingEntry[] => names.map((name) => ({ name, kind: "dir" }));
const listing = (name: string, entries: ListingEntry[], parentName = "Home") => ({
  name,
  parentName,
  entries,
  at: AT,
});

describe("recogniseUnit", () => {
  it.each([
    ["web", [...dirs(".git", "src"), ...files("README.md")], "software_project", "has .git", "projects/web"],
    ["lib", files("pyproject.toml", "lib.py"), "software_project", "has pyproject.toml", "projects/lib"],
    ["app", files("App.sln"), "software_project", "has App.sln (a Visual Studio solution)", "projects/app"],
    ["c", files("Makefile", "main.c"), "software_project", "has a Makefile and sources", "projects/c"],
    ["Thing.app", dirs("Contents"), "bundle", "a .app bundle", "applications/Thing.app"],
    ["Song.band", files("x"), "bundle", "a .band bundle", "applications/Song.band"],
  ])("%s is a %s", (name, entries, kind, reason, target) => {
    expect(recogniseUnit(listing(name, entries))).toEqual({ kind, reason, target });
  });

  it("recognises a LaTeX project, an album under its artist and a dated shoot", () => {
    expect(recogniseUnit(listing("Thesis", [...files("main.tex"), ...dirs("figures")]))?.kind).toBe(
      "document_project",
    );
    expect(recogniseUnit(listing("Blue", files("01 a.mp3", "02 b.mp3", "cover.jpg"), "Joni"))?.target).toBe(
      "music/Joni/Blue",
    );
    const shoot = [
      { name: "a.jpg", kind: "file" as const, mtime: Date.UTC(2024, 6, 9, 15) },
      { name: "b.jpg", kind: "file" as const, mtime: Date.UTC(2024, 6, 8, 23) },
      { name: "c.jpg", kind: "file" as const, mtime: Date.UTC(2024, 6, 10) },
    ];
    expect(recogniseUnit(listing("Lake", shoot))?.target).toBe("photos/2024/2024-07-08 Lake");
  });

  it("leaves ordinary folders alone", () => {
    expect(
      recogniseUnit(listing("Downloads", files("a.pdf", "b.mp3", "c.mp3", "setup.exe"))),
    ).toBeUndefined();
    expect(
      recogniseUnit(listing("Photos", [...files("a.jpg", "b.jpg", "c.jpg"), ...dirs("2019")])),
    ).toBeUndefined();
    expect(recogniseUnit(listing("notes", files("one.tex")))).toBeUndefined();
  });

  it("makes unit targets distinct", () => {
    const taken = new Set<string>();
    expect(["projects/web", "projects/Web", "projects/web"].map((t) => distinctUnitTarget(t, taken))).toEqual(
      ["projects/web", "projects/Web (2)", "projects/web (3)"],
    );
  });
});

describe("chooseOriginal", () => {
  it.each([
    ["Copy of a.png", true],
    ["a (1).png", true],
    ["a copy.png", true],
    ["a copy 2.png", true],
    ["a - Copy.png", true],
    ["a.png", false],
    ["Copywriting.txt", false],
    ["Screenshot 2023-02-01 at 10.00.00.png", false],
  ])("%s carries a copy marker: %s", (name, marked) => {
    expect(hasCopyMarker(name)).toBe(marked);
  });

  const copy = (rowId: string, sourcePath: string, date: number, seq: number) => ({
    rowId,
    sourcePath,
    date,
    seq,
  });
  it("walks the policy: name, then oldest date, then shortest path, then first seen", () => {
    expect(chooseOriginal([copy("a", "/d/Copy of x.png", 1, 1), copy("b", "/p/x.png", 2, 2)])).toEqual({
      rowId: "b",
      reasons: ["NAME_WITHOUT_COPY_MARKER"],
    });
    expect(chooseOriginal([copy("a", "/b/n.txt", 5, 1), copy("b", "/a/n.txt", 3, 2)])).toEqual({
      rowId: "b",
      reasons: ["OLDEST_DATE"],
    });
    expect(chooseOriginal([copy("a", "/xx/yy/r.txt", 3, 1), copy("b", "/x/r.txt", 3, 2)])).toEqual({
      rowId: "b",
      reasons: ["SHORTEST_PATH"],
    });
    expect(chooseOriginal([copy("a", "/b/r.txt", 3, 2), copy("b", "/a/r.txt", 3, 1)])).toEqual({
      rowId: "b",
      reasons: ["FIRST_SEEN"],
    });
    expect(
      chooseOriginal([copy("a", "/d/Copy of x.png", 1, 1), copy("b", "/p/x.png", 2, 2)], "first_seen"),
    ).toEqual({
      rowId: "a",
      reasons: ["FIRST_SEEN"],
    });
  });
});
