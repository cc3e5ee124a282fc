import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const domainDir = dirname(fileURLToPath(import.meta.url));
const sources = readdirSync(domainDir, { recursive: true, encoding: "utf8" }).filter(
  (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
);

/** What a pure domain module may not touch: executors, the engine, the store, Node's I/O, the network, timers. */
const FORBIDDEN: Array<[string, RegExp]> = [
  ["imports a step executor", /from\s+["'](\.\.\/)+core\/steps\//],
  ["imports the engine or a lane", /from\s+["'](\.\.\/)+(core|lanes)\//],
  // The kernel's errors module is pure (codes and classes); the rest of the kernel is not.
  ["imports the kernel beyond its errors", /from\s+["'](\.\.\/)+kernel\/(?!errors\.js["'])/],
  ["imports the store", /from\s+["'](\.\.\/)+store\//],
  ["imports a node: module", /from\s+["']node:/],
  ["imports a driver or HTTP client", /from\s+["'](drizzle-orm|@libsql\/client|undici)/],
  ["imports @vetted/store's I/O half (use @vetted/store/limits)", /from\s+["']@vetted\/store["']/],
  ["calls fetch", /\bfetch\s*\(/],
  ["uses a timer", /\b(setTimeout|setInterval|setImmediate)\s*\(/],
];

describe("src/domain is pure", () => {
  it("has sources to check", () => {
    expect(sources).toContain("steps.ts");
    expect(sources).toContain("transitions.ts");
  });

  it.each(sources)("%s imports no executor, engine, store or I/O and uses no fetch or timer", (file) => {
    const text = readFileSync(join(domainDir, file), "utf8");
    const broken = FORBIDDEN.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
    expect(broken).toEqual([]);
  });
});
