import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../../../tools/readme-example.js";
import { RUNS_ERROR_CODES } from "./kernel/errors.js";

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", { timeout: 60_000 }, () => {
    const run = runReadmeExample(join(dirname(fileURLToPath(import.meta.url)), ".."));
    expect(run.expected).toEqual(["waiting_otp", "success cart_1"]);
    expect(run.printed).toEqual(run.expected);
  });

  it("has one error-code table, with a row for every code the package throws", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    expect(readme.match(/^## Error codes$/gm)).toHaveLength(1);
    const table = readme.slice(readme.indexOf("## Error codes")).split("\n## ")[0] ?? "";
    expect(RUNS_ERROR_CODES.filter((code) => !table.includes(`| \`${code}\``))).toEqual([]);
  });
});
