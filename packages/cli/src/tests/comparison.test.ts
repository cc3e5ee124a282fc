import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runVetted } from "./harness.js";

const EXAMPLE = fileURLToPath(new URL("../../../comparison/examples/comparison.json", import.meta.url));

/**
 * `vetted comparison …` hands its arguments to `@vetted/comparison/cli`'s `runCli` (the
 * `vetted-comparison` CLI), under the name `vetted comparison`, with stdin, stdout and exit codes.
 */
describe("vetted comparison (alias of vetted-comparison)", () => {
  it("checks a document read from stdin (-) and exits 0 when it is valid", async () => {
    const run = await runVetted(["comparison", "check", "-"], {}, readFileSync(EXAMPLE, "utf8"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });

  it("exits 1 on a document with a duplicate key, and 2 with a short usage under its own name", async () => {
    const text = readFileSync(EXAMPLE, "utf8").replace("{", '{\n  "comparisonVersion": 1,');
    const invalid = await runVetted(["comparison", "check", "-", "--format", "json"], {}, text);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain("DUPLICATE_KEY");
    const usage = await runVetted(["comparison", "frobnicate"], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^vetted comparison: Unknown command "frobnicate"\./);
  });
});
