import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundleInputs(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL(entry, import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    metafile: true,
    logLevel: "silent",
    // Workspace packages resolve to their sources, as in the tests (no build needed).
    conditions: ["@vetted/source"],
  });
  return Object.keys(result.metafile.inputs);
}

describe("the package entries", () => {
  it("keeps the main entry pure: it bundles for the browser without any Node module", async () => {
    const inputs = await bundleInputs("./index.ts");
    expect(inputs.some((input) => input.includes("node_modules/zod/"))).toBe(true);
    expect(inputs.filter((input) => input.startsWith("node:") || input.includes("/node/"))).toEqual([]);
  });

  it("keeps the browser entry to the validator: no zod, no JSON parser", async () => {
    const inputs = await bundleInputs("./browser.ts");
    expect(inputs.filter((input) => input.includes("node_modules"))).toEqual([]);
    expect(inputs.map((input) => input.replace(/^.*\/src\//, "src/")).sort()).toEqual([
      "src/browser.ts",
      "src/domain/issue-text.ts",
      "src/domain/issue-walk.ts",
      "src/domain/issues.ts",
      "src/domain/quick-check.ts",
      "src/domain/shape.ts",
      "src/domain/validate.ts",
      "src/domain/vocabulary.ts",
    ]);
  });
});
