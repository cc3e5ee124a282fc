import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSampleDocument } from "../tests/fixtures.js";
import { runCli } from "./run.js";

let dir = "";

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    cwd: dir,
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vetted-comparison-run-"));
  writeFileSync(join(dir, "comparison.json"), JSON.stringify(createSampleDocument(), null, 2));
  const [first] = createSampleDocument().comparisons;
  const single = { ...createSampleDocument(), filters: [], comparisons: [{ ...first, compareAgainst: [] }] };
  writeFileSync(join(dir, "files.json"), JSON.stringify(single));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("runCli", () => {
  it("fails on warnings only with --warnings-as-errors", async () => {
    expect((await run(["validate", "comparison.json"])).code).toBe(0);
    expect((await run(["validate", "comparison.json", "--warnings-as-errors"])).code).toBe(1);
  });

  it("answers validate --format json with every file, its located issues and the totals", async () => {
    const { code, stdout } = await run(["validate", "comparison.json", "--format", "json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ errors: 0, warnings: 2, unreadable: 0 });
    expect(report.files[0].issues[0]).toMatchObject({
      code: "FILTER_VALUE_NOT_DERIVED",
      severity: "warning",
      pointer: "/filters/2/values/0/id",
      line: expect.any(Number),
      column: 17,
    });
  });

  it("checks that docs and pack paths exist only when asked to", async () => {
    expect((await run(["validate", "files.json"])).code).toBe(0);
    const { code, stdout } = await run(["validate", "files.json", "--check-files"]);
    expect(code).toBe(1);
    expect(stdout).toContain("MISSING_DOC_FILE");
    expect(stdout).toContain('Pack path "packs/codex-builder" of row "codex-builder" does not exist');
    mkdirSync(join(dir, "packs/codex-builder"), { recursive: true });
    mkdirSync(join(dir, "docs/codex-builder"), { recursive: true });
    writeFileSync(join(dir, "docs/codex-builder/README.md"), "# Codex builder\n");
    expect((await run(["validate", "files.json", "--check-files"])).code).toBe(0);
  });

  it("queries rows with --where and --group and prints their ids", async () => {
    const { code, stdout } = await run([
      "query",
      "comparison.json",
      "--where",
      "readOnly=true",
      "--where",
      "hostFamily=mcp",
      "--where",
      "hostFamily=codex",
      "--ids",
    ]);
    expect(code).toBe(0);
    expect(stdout).toBe("codex-docs-skill\nmcp-readonly-skill\nmcp-diagnostics-skill\n");
  });

  it("prints facets and a resolved group as JSON", async () => {
    const facets = JSON.parse((await run(["facets", "comparison.json", "--group", "kind:builder"])).stdout);
    expect(facets[1].values).toEqual([
      { id: "builder", label: "builder", count: 4 },
      { id: "skill", label: "skill", count: 0 },
    ]);
    const group = JSON.parse((await run(["group", "audience", "comparison.json"])).stdout);
    expect(group.values[1].rows.map((row: { id: string }) => row.id)).toEqual(["claude-code-docs-skill"]);
  });

  it("answers 2 for an unknown group (naming the known ids), a glob matching nothing, a bad draft or command", async () => {
    const unknown = await run(["group", "hosts", "comparison.json"]);
    expect(unknown).toMatchObject({ code: 2, stdout: "" });
    expect(unknown.stderr).toBe(
      'vetted-comparison: There is no filter group "hosts"; known groups: host, kind, audience.\n',
    );
    const glob = await run(["validate", "nothing/*.json"]);
    expect(glob.code).toBe(2);
    expect(glob.stderr).toContain("No file matches nothing/*.json.");
    expect((await run(["schema", "--draft", "04"])).stderr).toContain(
      'Unknown draft "04"; use 2020-12 or 07.',
    );
    const bad = await run(["lint"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown command "lint".');
    expect(bad.stderr).toContain("Usage: vetted-comparison <command> [options]");
  });
});
