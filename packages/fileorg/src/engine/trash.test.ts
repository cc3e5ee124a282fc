import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  encodeTrashPath,
  formatDeletionDate,
  formatTrashInfo,
  parseTrashInfo,
  trashNameCandidate,
} from "../domain/trash-info.js";
import { writeTree } from "../tests/harness.js";
import {
  chooseTrashSlot,
  defaultHomeTrash,
  deletionDateOf,
  removePartialTrashInfo,
  removeTrashInfo,
  topdirTrash,
  trashDirFor,
  writeTrashInfo,
} from "./trash.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function scratch(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "fileorg-trash-unit-")));
  dirs.push(d);
  return d;
}
const UID = process.getuid?.() ?? 0;

describe("the .trashinfo format", () => {
  it("percent-encodes Path (UTF-8 bytes, / kept) and parses back", () => {
    expect(encodeTrashPath("/home/a/Copy of résumé (1).txt")).toBe(
      "/home/a/Copy%20of%20r%C3%A9sum%C3%A9%20(1).txt",
    );
    const text = formatTrashInfo("/home/a/50% off #1.txt", "2026-11-27T07:03:38");
    expect(text).toBe(
      "[Trash Info]\nPath=/home/a/50%25%20off%20%231.txt\nDeletionDate=2026-11-27T07:03:38\n",
    );
    expect(parseTrashInfo(text)).toEqual({
      path: "/home/a/50% off #1.txt",
      deletionDate: "2026-11-27T07:03:38",
    });
    expect(parseTrashInfo("Path=/x\nDeletionDate=2026-11-27T07:03:38\n")).toBeUndefined();
    expect(parseTrashInfo("[Trash Info]\nPath=/x\nDeletionDate=yesterday\n")).toBeUndefined();
  });

  it("writes DeletionDate as local wall-clock time without a zone", () => {
    expect(formatDeletionDate({ year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5 })).toBe(
      "2026-01-02T03:04:05",
    );
    const at = new Date(2026, 10, 27, 7, 3, 38).getTime();
    expect(deletionDateOf(at)).toBe("2026-11-27T07:03:38");
  });

  it("numbers a name before its extension", () => {
    expect([1, 2, 3].map((n) => trashNameCandidate("photo.jpg", n))).toEqual([
      "photo.jpg",
      "photo.2.jpg",
      "photo.3.jpg",
    ]);
    expect(trashNameCandidate(".env", 2)).toBe(".env.2");
    expect(trashNameCandidate("README", 2)).toBe("README.2");
  });
});

describe("the trash directory", () => {
  it("is $XDG_DATA_HOME/Trash when XDG_DATA_HOME is absolute, else ~/.local/share/Trash", () => {
    expect(defaultHomeTrash({ XDG_DATA_HOME: "/data/me" })).toBe("/data/me/Trash");
    expect(defaultHomeTrash({ XDG_DATA_HOME: "relative" })).toMatch(/\/\.local\/share\/Trash$/);
    expect(defaultHomeTrash({})).toMatch(/\/\.local\/share\/Trash$/);
  });

  it("uses the home trash on its device, making files/ and info/ with mode 0700", () => {
    const root = scratch();
    writeTree(root, { "src/a.txt": "a" });
    const home = join(root, "data", "Trash");
    const trash = trashDirFor(join(root, "src/a.txt"), statSync(root).dev, { homeTrash: home, uid: UID });
    expect(trash).toEqual({ root: home, topdir: null });
    expect(statSync(join(home, "info")).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "files")).isDirectory()).toBe(true);
  });

  it("uses $topdir/.Trash/$uid only when .Trash is a sticky directory and not a symlink, else .Trash-$uid", () => {
    const top = scratch();
    expect(topdirTrash(top, UID)).toEqual({ root: join(top, `.Trash-${UID}`), topdir: top });

    const sticky = scratch();
    mkdirSync(join(sticky, ".Trash"));
    chmodSync(join(sticky, ".Trash"), 0o1777);
    expect(topdirTrash(sticky, UID)).toEqual({ root: join(sticky, ".Trash", String(UID)), topdir: sticky });

    const plain = scratch();
    mkdirSync(join(plain, ".Trash"), { mode: 0o777 });
    chmodSync(join(plain, ".Trash"), 0o777);
    expect(topdirTrash(plain, UID).root).toBe(join(plain, `.Trash-${UID}`));

    const linked = scratch();
    const elsewhere = scratch();
    chmodSync(elsewhere, 0o1777);
    symlinkSync(elsewhere, join(linked, ".Trash"));
    expect(topdirTrash(linked, UID).root).toBe(join(linked, `.Trash-${UID}`));

    const hostile = scratch();
    symlinkSync(scratch(), join(hostile, `.Trash-${UID}`));
    expect(() => topdirTrash(hostile, UID)).toThrow(/not a trash directory/);
  });

  it("names Path relative to the top directory in a top-directory trash", () => {
    const top = scratch();
    const slot = chooseTrashSlot(topdirTrash(top, UID), join(top, "docs/a b.txt"), new Set());
    expect(slot.infoPath).toBe("docs/a b.txt");
  });
});

describe("trash entries", () => {
  it("never overwrites an existing .trashinfo (O_EXCL)", () => {
    const root = scratch();
    const info = join(root, "x.trashinfo");
    expect(writeTrashInfo(info, "[Trash Info]\nPath=/first\nDeletionDate=2020-01-01T00:00:00\n")).toBe(
      "written",
    );
    expect(writeTrashInfo(info, "[Trash Info]\nPath=/second\nDeletionDate=2020-01-01T00:00:00\n")).toBe(
      "exists",
    );
    expect(readFileSync(info, "utf8")).toContain("Path=/first");
    expect(statSync(info).mode & 0o777).toBe(0o600);
  });

  it("never leaves a cut info: it is written beside, then linked into place; a crash's partial is cleared", () => {
    const root = scratch();
    writeTree(root, { "Trash/info/a.txt.trashinfo.partial": "" }); // a crash before the link
    const info = join(root, "Trash/info/a.txt.trashinfo");
    expect(existsSync(info)).toBe(false);
    expect(writeTrashInfo(info, formatTrashInfo("/home/me/a.txt", "2020-01-01T00:00:00"))).toBe("written");
    expect(readdirSync(join(root, "Trash/info"))).toEqual(["a.txt.trashinfo"]);
    writeTree(root, { "Trash/info/b.txt.trashinfo.partial": "[Trash" });
    removePartialTrashInfo(join(root, "Trash/files/b.txt"));
    expect(readdirSync(join(root, "Trash/info"))).toEqual(["a.txt.trashinfo"]);
  });

  it("removes only the info naming the original it is asked about", () => {
    const root = scratch();
    writeTree(root, {
      "Trash/info/a.txt.trashinfo": formatTrashInfo("/home/me/a.txt", "2020-01-01T00:00:00"),
      "Trash/info/b.txt.trashinfo": formatTrashInfo("docs/b.txt", "2020-01-01T00:00:00"),
    });
    expect(removeTrashInfo(join(root, "Trash/files/a.txt"), "/home/me/other.txt")).toBe(false);
    expect(removeTrashInfo(join(root, "Trash/files/a.txt"), "/home/me/a.txt")).toBe(true);
    expect(removeTrashInfo(join(root, "Trash/files/b.txt"), "/mnt/usb/docs/b.txt")).toBe(true);
    expect(removeTrashInfo(join(root, "Trash/files/c.txt"), "/nowhere")).toBe(true);
  });
});
