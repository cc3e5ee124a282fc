import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = dirname(fileURLToPath(import.meta.url));

/** Every non-test TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "tests" || e.name === "fuzz" ? [] : sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("the server's layout", () => {
  it("has no module import app.ts but main.ts: routes take their types from deps.ts (no import circle)", () => {
    const offenders = sources(src).filter((file) => {
      if (file === join(src, "main.ts") || file === join(src, "app.ts")) return false;
      return /from "(\.\.\/)*(\.\/)?app\.js"/.test(readFileSync(file, "utf8"));
    });
    expect(offenders.map((f) => relative(src, f))).toEqual([]);
  });
});
