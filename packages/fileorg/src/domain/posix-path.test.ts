import { posix } from "node:path";
import { describe, expect, it } from "vitest";
import { basename, dirname, extname, isInside, utf8ByteLength } from "./posix-path.js";

/** A deterministic generator (xorshift32), so a failure names the same inputs on every run. */
function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x1_0000_0000;
  };
}

function strings(alphabet: readonly string[], count: number, maxLength: number, seed: number): string[] {
  const next = generator(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    let s = "";
    const length = Math.floor(next() * (maxLength + 1));
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)] ?? "";
    out.push(s);
  }
  return out;
}

const PATH_EDGES = [
  "",
  "/",
  "//",
  "///",
  ".",
  "..",
  "...",
  "/.",
  "/..",
  "a",
  "/a",
  "//a",
  "///a",
  "a/",
  "a//",
];
const PATHS = [
  ...PATH_EDGES,
  ".bashrc",
  "/home/me/.bashrc",
  "a.",
  "..x",
  "a/b.c/",
  "Report.final.PDF",
  "site.tar.gz",
  "/x/y//z.txt//",
  ...strings(["a", "b", ".", "/", " "], 5000, 9, 0x2545f491),
];

describe("posix path helpers", () => {
  it("answer what node:path's posix functions answer", () => {
    for (const path of PATHS) {
      expect(basename(path), JSON.stringify(path)).toBe(posix.basename(path));
      expect(dirname(path), JSON.stringify(path)).toBe(posix.dirname(path));
      expect(extname(path), JSON.stringify(path)).toBe(posix.extname(path));
    }
  });

  it("count UTF-8 bytes as Buffer.byteLength does, lone surrogates included", () => {
    const units = ["a", "é", "€", "\u{1f600}", "\ud83d", "\ude00", "\u0000", "\u07ff", "\u0800", "\uffff"];
    for (const text of ["", "Invoice March.pdf", ...strings(units, 3000, 12, 0x1234567)]) {
      expect(utf8ByteLength(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
    }
  });
});

describe("isInside(root, candidate)", () => {
  it("is true for the root itself and paths below it, segment by segment", () => {
    expect(isInside("/out", "/out")).toBe(true);
    expect(isInside("/out", "/out/a/b.txt")).toBe(true);
    expect(isInside("/out/", "/out/a")).toBe(true);
    expect(isInside("/", "/anything")).toBe(true);
  });

  it("is false for a sibling sharing a prefix, a parent, and anything elsewhere", () => {
    expect(isInside("/out", "/outside/a")).toBe(false);
    expect(isInside("/out/a", "/out")).toBe(false);
    expect(isInside("/out", "/elsewhere")).toBe(false);
  });
});
