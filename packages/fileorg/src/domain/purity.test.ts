import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const domainDir = dirname(fileURLToPath(import.meta.url));
const sources = readdirSync(domainDir, { recursive: true, encoding: "utf8" }).filter(
  (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
);

/**
 * What a pure domain module may not touch: the engine, the store, Node's modules (file system, crypto,
 * paths, processes…), a driver or the network, the clock, timers or randomness. Paths are `/`-strings
 * (`posix-path.ts`); hashing and ids live in `engine/`; the time is a parameter.
 */
const FORBIDDEN: Array<[string, RegExp]> = [
  ["imports the engine", /from\s+["'](\.\.\/)+engine\//],
  ["imports the store", /from\s+["'](\.\.\/)+store\//],
  ["imports a node: module", /(from\s+|import\s*\(\s*|require\s*\(\s*)["']node:/],
  [
    "imports a Node built-in without node:",
    /from\s+["'](fs|path|crypto|os|child_process|worker_threads)(\/[\w]+)?["']/,
  ],
  ["imports a driver or HTTP client", /from\s+["'](drizzle-orm|@libsql\/client|undici|chokidar)/],
  ["imports @vetted/store's I/O half", /from\s+["']@vetted\/store["']/],
  ["calls fetch", /\bfetch\s*\(/],
  ["uses a timer", /\b(setTimeout|setInterval|setImmediate)\s*\(/],
  ["reads the clock", /\bDate\.now\s*\(|\bnew\s+Date\s*\(\s*\)|\bperformance\.now\s*\(/],
  ["draws randomness", /\bMath\.random\s*\(|\bcrypto\.(randomUUID|getRandomValues)\s*\(/],
  ["touches the process", /\bprocess\.(env|cwd|argv|exit|hrtime)\b/],
];

/** The reasons `text` is not pure domain code (empty when it is). */
function impurities(text: string): string[] {
  return FORBIDDEN.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

describe("src/domain is pure", () => {
  it("has sources to check", () => {
    expect(sources).toContain("manifest.ts");
    expect(sources).toContain("posix-path.ts");
  });

  it.each(sources)(
    "%s imports no engine, store, Node module or driver and uses no clock, timer or randomness",
    (file) => {
      expect(impurities(readFileSync(join(domainDir, file), "utf8"))).toEqual([]);
    },
  );

  it("the check does catch a file-system import, a hash, the clock and randomness", () => {
    expect(impurities('import { readFileSync } from "node:fs";')).toEqual(["imports a node: module"]);
    expect(impurities('import { createHash } from "crypto";')).toEqual([
      "imports a Node built-in without node:",
    ]);
    expect(impurities("const at = Date.now();")).toEqual(["reads the clock"]);
    expect(impurities("const at = new Date();")).toEqual(["reads the clock"]);
    expect(impurities("const id = crypto.randomUUID();")).toEqual(["draws randomness"]);
    // A date built from a given time is pure.
    expect(impurities("const d = new Date(row.mtime);")).toEqual([]);
  });
});
