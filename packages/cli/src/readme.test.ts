import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runReadmeExample } from "../../../tools/readme-example.js";
import { runVetted } from "./tests/harness.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("the README", () => {
  it("runs its TypeScript example verbatim and prints what its comments say", () => {
    const run = runReadmeExample(packageDir);
    expect(run.expected.length).toBeGreaterThan(0);
    expect(run.printed).toEqual(run.expected);
  });

  it("documents every command vetted --help lists", async () => {
    const help = await runVetted(["--help"], {});
    const commands = [...help.stdout.matchAll(/^ {2}(\w+) /gm)].map((m) => m[1]).filter((c) => c !== "help");
    expect(commands.length).toBe(11);
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    for (const command of commands) expect(readme).toContain(`| \`vetted ${command}`);
  });
});
