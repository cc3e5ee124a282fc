import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", { timeout: 60_000 }, () => {
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const code = example ?? "";
    const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected).toEqual(["waiting_otp", "success cart_1"]);
    // Inside the package's own scope (not under node_modules), so `@vetted/runs` resolves to this package
    // by self-reference, its dependencies resolve, and the file is an ES module (top-level await).
    const folder = mkdtempSync(join(packageDir, ".readme-"));
    try {
      const file = join(folder, "example.ts");
      writeFileSync(file, code);
      const tsx = join(packageDir, "node_modules", ".bin", "tsx");
      const out = execFileSync(tsx, ["--conditions=@vetted/source", file], {
        cwd: packageDir,
        encoding: "utf8",
        timeout: 50_000,
      });
      expect(out.trim().split("\n")).toEqual(expected);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
