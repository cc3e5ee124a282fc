import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lint, validateText } from "./index.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", () => {
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const code = example ?? "";
    const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(0);
    // Inside the package folder so `@vetted/comparison` resolves to this package (self-reference).
    const file = join(mkdtempSync(join(packageDir, "node_modules", ".readme-")), "example.ts");
    writeFileSync(file, code);
    const tsx = join(packageDir, "..", "..", "node_modules", ".bin", "tsx");
    const out = execFileSync(tsx, ["--conditions=@vetted/source", file], {
      cwd: packageDir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out.trim().split("\n")).toEqual(expected);
  });

  it("points at an example document that is valid and lint-clean", () => {
    const file = "examples/comparison.json";
    const result = validateText(readFileSync(join(packageDir, file), "utf8"), file);
    expect(result.ok).toBe(true);
    if (result.ok) expect(lint(result.value, { curatedGroups: ["audience"] })).toEqual([]);
  });
});
