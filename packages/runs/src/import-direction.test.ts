import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The package's imports point one way: lanes → core → kernel (→ domain, store). A lane may use the core;
// the core and the kernel never name a lane, and the kernel never names the core. `src/platform.ts`
// composes the core with its lanes (the webhooks outbox through a transition hook, inbound SMS and failure
// embeddings as the worker's chores), so no edge is allowed here.

const srcDir = dirname(fileURLToPath(import.meta.url));

/** Every relative specifier of `import … from`, `export … from`, `import("…")` and `import "…"`. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;

function sourcesUnder(folder: string): string[] {
  return readdirSync(join(srcDir, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => join(folder, f));
}

/** The folders under `src/` that `file` (a path under `src/`) imports from, as `folder/…` paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(srcDir, file), "utf8");
  return [...text.matchAll(SPECIFIER)].map((m) =>
    relative(srcDir, resolve(join(srcDir, dirname(file)), m[1] ?? "")).replaceAll("\\", "/"),
  );
}

const RULES: Array<{ from: string; never: readonly string[] }> = [
  { from: "kernel", never: ["core/", "lanes/", "platform.js", "index.js"] },
  { from: "core", never: ["lanes/", "platform.js", "index.js"] },
];

describe("imports point from the lanes to the core to the kernel", () => {
  it("has sources to check", () => {
    expect(sourcesUnder("kernel")).toContain(join("kernel", "errors.ts"));
    expect(sourcesUnder("core")).toContain(join("core", "persist.ts"));
    expect(importsOf(join("core", "persist.ts"))).toContain("core/resources.js");
  });

  for (const rule of RULES) {
    it.each(sourcesUnder(rule.from))(`%s imports none of ${rule.never.join(", ")}`, (file) => {
      const wrong = importsOf(file).filter((target) => rule.never.some((bad) => target.startsWith(bad)));
      expect(wrong).toEqual([]);
    });
  }
});
