import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../../../tools/readme-example.js";
import { runCli } from "./cli-api.js";
import { lint, validateText } from "./index.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", () => {
    const run = runReadmeExample(packageDir);
    expect(run.expected.length).toBeGreaterThan(0);
    expect(run.printed).toEqual(run.expected);
  });

  it("points at an example document that is valid and lint-clean", () => {
    const file = "examples/comparison.json";
    const result = validateText(readFileSync(join(packageDir, file), "utf8"), file);
    expect(result.ok).toBe(true);
    if (result.ok) expect(lint(result.value, { curatedGroups: ["audience"] })).toEqual([]);
  });

  it("shows the CLI reference exactly as --help prints it", async () => {
    let help = "";
    const io = { cwd: packageDir, env: {}, stdout: (text: string) => (help += text), stderr: () => {} };
    expect(await runCli(["--help"], io)).toBe(0);
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    expect(readme).toContain(`## CLI\n\n\`\`\`\n${help}\`\`\`\n`);
  });
});
