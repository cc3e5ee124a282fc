import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderJsonSchemaText } from "../domain/json-schema.js";
import { type BinOutcome, buildBin, runBin as runBuiltBin } from "../tests/bin.js";
import { cloneJson, createLargeDocument, createSampleDocument } from "../tests/fixtures.js";

let bin = "";

/** Runs the real `vetted-comparison` process (bundled from source in `beforeAll`) in `cwd`. */
function runBin(args: string[], cwd: string, env: Record<string, string> = {}): Promise<BinOutcome> {
  return runBuiltBin(bin, args, cwd, { env });
}

let dir = "";

function write(name: string, value: unknown): void {
  writeFileSync(join(dir, name), typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-comparison-cli-"));
  bin = await buildBin(dir);
  mkdirSync(join(dir, "docs"));
  write("docs/a.json", createSampleDocument());
  const broken = cloneJson(createSampleDocument()) as unknown as {
    comparisons: Array<Record<string, unknown>>;
  };
  const row = broken.comparisons[2];
  if (row) row.status = "beta";
  write("docs/b.json", broken);
  write("not-json.json", '{ "$schema": "x",, }');

  const noisy = createLargeDocument(40) as unknown as {
    comparisons: Array<Record<string, unknown>>;
    filters: Array<{ values: Array<{ id: string }> }>;
  };
  for (let i = 0; i < 15; i++) {
    const target = noisy.comparisons[i];
    if (target) target.label = "";
  }
  write("noisy.json", noisy);
  const warned = createLargeDocument(40);
  for (const value of warned.filters[0]?.values ?? []) value.id = `${value.id}-picked`;
  for (const value of warned.filters[1]?.values ?? []) value.id = `${value.id}-picked`;
  for (const value of warned.filters[2]?.values ?? []) value.id = `${value.id}-picked`;
  write("warned.json", warned);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the vetted-comparison process", { timeout: 60_000 }, () => {
  it("exits 0 for a valid document with warnings, and 1 once warnings count as errors", async () => {
    const valid = await runBin(["validate", "docs/a.json"], dir);
    expect(valid.stdout).toContain("0 errors, 2 warnings in 1 file (0 clean)");
    expect(valid.code).toBe(0);
    expect((await runBin(["validate", "docs/a.json", "--warnings-as-errors"], dir)).code).toBe(1);
    const curated = await runBin(
      ["validate", "docs/a.json", "--curated", "audience", "--warnings-as-errors"],
      dir,
    );
    expect(curated.stdout).toBe("0 errors, 0 warnings in 1 file (1 clean)\n");
    expect(curated.code).toBe(0);
  });

  it("exits 1 when a file matched by a glob is invalid, naming the place of each issue", async () => {
    const outcome = await runBin(["validate", "docs/*.json", "--no-lint"], dir);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toMatch(
      /^docs\/b\.json:\d+:17 {2}error {4}INVALID_ENUM {2}"beta" is not an allowed status/m,
    );
    expect(outcome.stdout).toContain("1 error, 0 warnings in 2 files (1 clean)");
  });

  it("exits 2 for an unreadable file, an unknown option, a glob matching nothing or a bad draft", async () => {
    const missing = await runBin(["validate", "docs/a.json", "missing.json"], dir);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain("missing.json: cannot read the file (ENOENT)");
    const option = await runBin(["validate", "--colour", "docs/a.json"], dir);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("Unknown option '--colour'");
    const glob = await runBin(["validate", "nothing/*.json"], dir);
    expect(glob.code).toBe(2);
    expect(glob.stderr).toContain("No file matches nothing/*.json.");
    expect((await runBin(["schema", "--draft", "04"], dir)).code).toBe(2);
  });

  it("annotates for GitHub when GITHUB_ACTIONS=true: ten per level, then a roll-up line", async () => {
    const outcome = await runBin(["validate", "noisy.json", "warned.json", "not-json.json"], dir, {
      GITHUB_ACTIONS: "true",
    });
    expect(outcome.code).toBe(1);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines.filter((line) => line.startsWith("::error ")).length).toBe(10);
    expect(lines.filter((line) => line.startsWith("::warning ")).length).toBe(10);
    expect(lines[0]).toBe(
      `::error file=noisy.json,line=${lineOfFirstLabel()},col=16,title=EMPTY_STRING::"label" of row /comparisons/0 must not be empty; write a value or remove the entry. (/comparisons/0/label)`,
    );
    expect(lines.at(-2)).toMatch(
      /^6 more errors and \d+ more warnings not annotated \(GitHub shows 10 per level\)/,
    );
    expect(lines.at(-1)).toMatch(/^16 errors, \d+ warnings in 3 files \(0 clean\)$/);
  });

  it("prints the draft-07 schema", async () => {
    const outcome = await runBin(["schema", "--draft", "07"], dir);
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe(renderJsonSchemaText("07"));
  });
});

function lineOfFirstLabel(): number {
  const text = JSON.stringify({ ...createLargeDocument(40) }, null, 2);
  return text.slice(0, text.indexOf('"label": "Starter 0')).split("\n").length;
}
