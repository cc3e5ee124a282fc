import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { buildBin } from "../tests/bin.js";
import { createSampleDocument } from "../tests/fixtures.js";

/* The composite GitHub Action in action.yml: its script, run by bash as a runner would run it, with
   `npx` answered by a shim that checks the package spec and runs the bin built from source. */

interface ActionStep {
  readonly shell: string;
  readonly run: string;
  readonly env: Readonly<Record<string, string>>;
}
interface Action {
  readonly inputs: Readonly<Record<string, { readonly default?: string; readonly required?: boolean }>>;
  readonly runs: { readonly using: string; readonly steps: readonly ActionStep[] };
}

const action = parse(readFileSync(new URL("../../action.yml", import.meta.url), "utf8")) as Action;
let dir = "";
let repo = "";

function write(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-comparison-action-"));
  const bin = await buildBin(dir);
  write(
    join(dir, "shim", "npx"),
    [
      "#!/bin/sh",
      'printf "%s\\n" "$@" > "$SHIM_LOG"',
      '[ "$1" = --yes ] && [ "$2" = --package ] && [ "$4" = -- ] && [ "$5" = vetted-comparison ] || exit 97',
      "shift 5",
      `exec "${process.execPath}" "${bin}" "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(join(dir, "shim", "npx"), 0o755);
  repo = join(dir, "repo");
  const document = createSampleDocument();
  for (const row of document.comparisons) {
    write(join(repo, "docs", row.id, "README.md"), `# ${row.label}\n`);
    write(join(repo, "packs", row.id, "pack.json"), "{}");
  }
  write(join(repo, "docs", "comparison.json"), JSON.stringify(document, null, 2));
  write(join(repo, "node_modules", "dep", "comparison.json"), "{ broken");
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the action's step with its inputs (defaults from action.yml, then `inputs`). */
function runAction(inputs: Record<string, string>) {
  const [step] = action.runs.steps;
  if (step === undefined) throw new Error("action.yml has no step");
  const values: Record<string, string> = {};
  for (const [name, input] of Object.entries(action.inputs))
    values[name] = inputs[name] ?? input.default ?? "";
  const env: Record<string, string> = { PATH: `${join(dir, "shim")}:${process.env.PATH ?? ""}` };
  for (const [name, expression] of Object.entries(step.env)) {
    const input = /^\$\{\{ inputs\.([a-z-]+) \}\}$/.exec(expression)?.[1];
    if (input === undefined) throw new Error(`${name} is not set from an input`);
    env[name] = values[input] ?? "";
  }
  env.SHIM_LOG = join(dir, "npx-args.txt");
  return new Promise<{ code: number | null; stdout: string; args: string[] }>((resolvePromise, reject) => {
    const child = spawn("bash", ["-c", step.run], { cwd: repo, env, stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const args = readFileSync(env.SHIM_LOG ?? "", "utf8")
        .trimEnd()
        .split("\n");
      resolvePromise({ code, stdout, args });
    });
  });
}

describe("the composite GitHub Action", { timeout: 60_000 }, () => {
  it("is a bash step that reads its inputs from the environment only", () => {
    expect(action.runs.using).toBe("composite");
    expect(action.inputs.files?.required).toBe(true);
    const [step] = action.runs.steps;
    expect(step?.shell).toBe("bash");
    expect(step?.run).not.toContain("${{");
  });

  it("runs `vetted-comparison check` with every input turned into its option", async () => {
    const outcome = await runAction({
      files: "  docs/comparison.json  \n\n**/comparison.json\n",
      curated: "audience, kind",
      "base-dir": ".",
      "warnings-as-errors": "true",
      version: "1.2.3",
    });
    expect(outcome.args).toEqual([
      "--yes",
      "--package",
      "@vetted/comparison@1.2.3",
      "--",
      "vetted-comparison",
      "check",
      "--format",
      "github",
      "docs/comparison.json",
      "**/comparison.json",
      "--curated",
      "audience",
      "--curated",
      "kind",
      "--base-dir",
      ".",
      "--warnings-as-errors",
    ]);
    expect(outcome).toMatchObject({ code: 0, stdout: "0 errors, 0 warnings in 1 file (1 clean)\n" });
  });

  it("fails the step with annotations when a document has findings", async () => {
    const outcome = await runAction({ files: "docs/comparison.json", "check-files": "true" });
    expect(outcome.args.slice(2, 3)).toEqual(["@vetted/comparison@latest"]);
    expect(outcome.args.slice(5)).toEqual([
      "check",
      "--format",
      "github",
      "docs/comparison.json",
      "--check-files",
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain("::error file=docs/comparison.json,line=");
    expect(outcome.stdout).toContain("title=MISSING_DOC_FILE::");
    expect(outcome.stdout).toContain("::warning file=docs/comparison.json,");
  });
});
