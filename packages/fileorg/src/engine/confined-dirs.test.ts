import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { confinedFs } from "./confined-fs.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A root with src/a/{one,two}.txt and an empty out/, and a batch's open-directories cache. */
function setup() {
  const root = tempDir("fileorg-dirs-");
  mkdirSync(join(root, "src", "a"), { recursive: true });
  mkdirSync(join(root, "out"));
  writeFileSync(join(root, "src", "a", "one.txt"), "one");
  writeFileSync(join(root, "src", "a", "two.txt"), "two");
  const dirs = new Map<string, number>();
  const move = (name: string, to = join(root, "out", name)) =>
    confinedFs.linkMoveIn([root], [root], { from: join(root, "src", "a", name), to, identity: null }, dirs);
  return { root, dirs, move };
}

describe("a batch's open directories (real parents read from /proc/self/fd)", () => {
  it("refuses a move once the source folder it opened is swapped for a symlink to an outside folder", () => {
    const { root, dirs, move } = setup();
    const outside = tempDir("fileorg-dirs-outside-");
    writeFileSync(join(outside, "two.txt"), "outside");
    try {
      expect(move("one.txt")).toEqual({ outcome: "moved" });
      renameSync(join(root, "src", "a"), join(root, "src", "a-old"));
      symlinkSync(outside, join(root, "src", "a"));
      expect(move("two.txt")).toEqual({ outcome: "outside_root" });
      expect(readFileSync(join(outside, "two.txt"), "utf8")).toBe("outside");
      expect(readFileSync(join(root, "src", "a-old", "two.txt"), "utf8")).toBe("two");
    } finally {
      confinedFs.closeDirs(dirs);
    }
  });

  it("refuses a move once the target folder it opened is swapped for a symlink to an outside folder", () => {
    const { root, dirs, move } = setup();
    const outside = tempDir("fileorg-dirs-outside-");
    try {
      expect(move("one.txt")).toEqual({ outcome: "moved" });
      renameSync(join(root, "out"), join(root, "out-old"));
      symlinkSync(outside, join(root, "out"));
      expect(move("two.txt")).toEqual({ outcome: "outside_root" });
      expect(readFileSync(join(root, "src", "a", "two.txt"), "utf8")).toBe("two");
    } finally {
      confinedFs.closeDirs(dirs);
    }
  });

  it("moves into the folder the path names now, not the one it opened before it was replaced", () => {
    const { root, dirs, move } = setup();
    try {
      expect(move("one.txt")).toEqual({ outcome: "moved" });
      renameSync(join(root, "out"), join(root, "out-old"));
      mkdirSync(join(root, "out"));
      expect(move("two.txt")).toEqual({ outcome: "moved" });
      expect(readFileSync(join(root, "out", "two.txt"), "utf8")).toBe("two");
      expect(readFileSync(join(root, "out-old", "one.txt"), "utf8")).toBe("one");
    } finally {
      confinedFs.closeDirs(dirs);
    }
  });

  it("closes what it opened", () => {
    const { dirs, move } = setup();
    expect(move("one.txt")).toEqual({ outcome: "moved" });
    const opened = [...dirs.values()].filter((fd) => fd >= 0);
    confinedFs.closeDirs(dirs);
    expect(dirs.size).toBe(0);
    if (process.platform === "linux") expect(opened.length).toBe(2);
  });
});
