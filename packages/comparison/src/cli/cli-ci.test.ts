import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComparisonDocument } from "../domain/schema.js";
import { buildBin, runBin } from "../tests/bin.js";
import { createSampleDocument } from "../tests/fixtures.js";

/* The CI-facing items of the vetted-comparison process, each run as a real process on real folders. */

let dir = "";
let bin = "";
const sampleText = JSON.stringify(createSampleDocument(), null, 2);

function write(path: string, content: unknown): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

const run = (args: string[], cwd = dir, stdin?: string) =>
  runBin(bin, args, cwd, stdin === undefined ? {} : { stdin });

/** Where a needle is, 1-based, as the CLI reports it. */
function positionOf(text: string, offset: number): string {
  const before = text.slice(0, offset).split("\n");
  return `${before.length}:${(before.at(-1)?.length ?? 0) + 1}`;
}

function documentWith(change: (document: ComparisonDocument) => void): ComparisonDocument {
  const document = createSampleDocument();
  change(document);
  return document;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-comparison-ci-"));
  bin = await buildBin(dir);
  write("docs/a.json", sampleText);
  // A repository whose document names its paths from the repository root, as Switchyard's does.
  for (const row of createSampleDocument().comparisons) {
    write(`repo/docs/${row.id}/README.md`, `# ${row.label}\n`);
    write(`repo/packs/${row.id}/pack.json`, "{}");
  }
  write("repo/docs/comparison.json", sampleText);
  // Globs: one real document, broken copies inside dependency and Git folders.
  write("globs/a/comparison.json", sampleText);
  write("globs/node_modules/pkg/comparison.json", "{ broken");
  write("globs/a/node_modules/dep/comparison.json", "{ broken");
  write("globs/.git/comparison.json", "{ broken");
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("vetted-comparison in CI", { timeout: 60_000 }, () => {
  it("prints the package version with --version", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const outcome = await run(["--version"]);
    expect(outcome).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("prints one command's reference with <command> --help, -h and help <command>", async () => {
    const validate = await run(["validate", "--help"]);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(
      /^Usage: vetted-comparison validate \[options\] <files, globs or ->\.\.\./,
    );
    expect(validate.stdout).toContain("--base-dir <dir>");
    expect(validate.stdout).not.toContain("--ids");
    expect((await run(["check", "-h"])).stdout).toBe(validate.stdout);
    const query = await run(["help", "query"]);
    expect(query.stdout).toMatch(/^Usage: vetted-comparison query \[options\] <file or ->/);
    expect(query.stdout).toContain("--ids");
    expect((await run(["query", "docs/a.json", "--help"])).stdout).toBe(query.stdout);
    expect((await run(["help", "--help"])).stdout).toMatch(/^Usage: vetted-comparison help \[command\]\n/);
    const full = await run(["--help"]);
    for (const command of ["validate", "query", "facets", "group", "schema", "help"]) {
      expect(full.stdout).toContain(`\n  ${command} `);
    }
  });

  it("checks with `check` exactly as with `validate`", async () => {
    const check = await run(["check", "docs/a.json", "--format", "json"]);
    const validate = await run(["validate", "docs/a.json", "--format", "json"]);
    expect(check).toEqual(validate);
    expect(check.code).toBe(0);
    expect((await run(["check", "docs/a.json", "--warnings-as-errors"])).code).toBe(1);
  });

  it("reads a document from standard input as -", async () => {
    const valid = await run(["check", "-", "--curated", "audience"], dir, sampleText);
    expect(valid).toEqual({ code: 0, stdout: "0 errors, 0 warnings in 1 file (1 clean)\n", stderr: "" });
    const broken = sampleText.replace('"status": "partial"', '"status": "beta"');
    const invalid = await run(["check", "-"], dir, broken);
    expect(invalid.code).toBe(1);
    const place = positionOf(broken, broken.indexOf('"beta"'));
    expect(invalid.stdout).toContain(`<stdin>:${place}  error    INVALID_ENUM`);
    const named = await run(["check", "-", "--stdin-name", "docs/comparison.json"], dir, broken);
    expect(named.stdout).toContain(`docs/comparison.json:${place}  error    INVALID_ENUM`);
    const ids = await run(["query", "-", "--ids", "--where", "hostFamily=mcp"], dir, sampleText);
    expect(ids).toEqual({ code: 0, stdout: "mcp-readonly-skill\nmcp-diagnostics-skill\n", stderr: "" });
    const misspelt = await run(["query", "-", "--where", "hostfamly=mcp"], dir, sampleText);
    expect(misspelt.code).toBe(2);
    expect(misspelt.stderr).toMatch(
      /^vetted-comparison: Rows cannot be filtered on "hostfamly"; did you mean "hostFamily"\? Filterable fields: id, /,
    );
    const facets = JSON.parse((await run(["facets", "-"], dir, sampleText)).stdout);
    expect(facets.map((facet: { id: string }) => facet.id)).toEqual(["host", "kind", "audience"]);
    const group = JSON.parse((await run(["group", "audience", "-"], dir, sampleText)).stdout);
    expect(group.id).toBe("audience");
    const empty = await run(["check", "-"], dir, "");
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain("The text is empty");
  });

  it("does not wait on a terminal for -: standard input that is a TTY is an unreadable input", async () => {
    // `script` gives the process a pseudo-terminal as its standard input.
    const outcome = await new Promise<{ code: number | null; stdout: string }>((resolvePromise) => {
      const command = `"${process.execPath}" "${bin}" check -`;
      execFile("script", ["-qec", command, "/dev/null"], { cwd: dir, timeout: 20_000 }, (error, stdout) =>
        resolvePromise({ code: error === null ? 0 : (error.code as number), stdout }),
      );
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toContain(
      "<stdin>: cannot read the file (standard input is a terminal; pipe a document into -)",
    );
  });

  it("reports a duplicate key with the positions of both occurrences", async () => {
    const anchor = '"id": "codex-docs-skill",';
    const text = sampleText.replace(anchor, `${anchor}\n      "readOnly": false,`);
    const first = text.indexOf('"readOnly"', text.indexOf(anchor));
    const repeat = text.indexOf('"readOnly"', first + 1);
    expect(repeat).toBeGreaterThan(first);
    const outcome = await run(["check", "-", "--stdin-name", "dup.json"], dir, text);
    expect(outcome.code).toBe(1);
    const [line, column] = positionOf(text, repeat).split(":");
    const [firstLine, firstColumn] = positionOf(text, first).split(":");
    expect(outcome.stdout).toBe(
      `dup.json:${line}:${column}  error    DUPLICATE_KEY  Key "readOnly" is repeated in this object (first at line ${firstLine}, column ${firstColumn}); JSON parsers silently keep only the last value, so remove or rename one of them.  (/comparisons/1/readOnly)\n` +
        "1 error, 0 warnings in 1 file (0 clean)\n",
    );
    const json = JSON.parse((await run(["check", "-", "--format", "json"], dir, text)).stdout);
    expect(json.files[0].issues[0].params).toMatchObject({
      key: "readOnly",
      firstLine: Number(firstLine),
      firstColumn: Number(firstColumn),
    });
  });

  it("resolves --check-files paths from --base-dir instead of the document's folder", async () => {
    const repo = join(dir, "repo");
    const fromDocument = await run(["check", "docs/comparison.json", "--check-files"], repo);
    expect(fromDocument.code).toBe(1);
    expect(fromDocument.stdout).toMatch(/MISSING_DOC_FILE/);
    expect(fromDocument.stdout).toMatch(/MISSING_PACK_PATH/);
    const fromRoot = await run(
      ["check", "docs/comparison.json", "--base-dir", ".", "--curated", "audience"],
      repo,
    );
    expect(fromRoot).toEqual({ code: 0, stdout: "0 errors, 0 warnings in 1 file (1 clean)\n", stderr: "" });
    const fromStdin = await run(["check", "-", "--base-dir", repo, "--curated", "audience"], dir, sampleText);
    expect(fromStdin.code).toBe(0);
    const missing = await run(["check", "docs/comparison.json", "--base-dir", "nowhere"], repo);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `--base-dir nowhere is not a folder (looked for ${join(repo, "nowhere")}).`,
    );
  });

  it("skips node_modules and .git folders in ** globs unless the pattern names them", async () => {
    const globs = join(dir, "globs");
    const all = await run(["check", "**/*.json", "--format", "json"], globs);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).files.map((file: { file: string }) => file.file)).toEqual([
      "a/comparison.json",
    ]);
    const named = await run(["check", "node_modules/**/*.json"], globs);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain("node_modules/pkg/comparison.json:1:3  error    INVALID_JSON");
  });

  it("answers a usage error with a short usage line, not the whole reference", async () => {
    const option = await run(["check", "--colour", "docs/a.json"]);
    expect(option.code).toBe(2);
    expect(option.stdout).toBe("");
    expect(option.stderr).toBe(
      "vetted-comparison: Unknown option '--colour'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--colour\"\n" +
        "Usage: vetted-comparison check [options] <files, globs or ->...\n" +
        'Run "vetted-comparison check --help" for the options.\n',
    );
    const command = await run(["lint", "docs/a.json"]);
    expect(command.code).toBe(2);
    expect(command.stderr.split("\n")).toHaveLength(4);
    expect(command.stderr).toMatch(
      /^vetted-comparison: Unknown command "lint"\.\nUsage: vetted-comparison <command>/,
    );
  });

  it("refuses a --curated id that no checked document defines, suggesting the likely one", async () => {
    const outcome = await run(["check", "docs/a.json", "--curated", "audiance", "--curated", "host"]);
    expect(outcome).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'vetted-comparison: --curated "audiance" names no filter group of the checked documents (did you mean "audience"?); known groups: host, kind, audience.\n' +
        "Usage: vetted-comparison check [options] <files, globs or ->...\n" +
        'Run "vetted-comparison check --help" for the options.\n',
    });
  });

  it("lints each checked document with the --curated groups it defines", async () => {
    write("curated/with.json", sampleText);
    write(
      "curated/without.json",
      documentWith((doc) => doc.filters.splice(2, 1)),
    );
    const outcome = await run([
      "check",
      "curated/with.json",
      "curated/without.json",
      "--curated",
      "audience",
    ]);
    expect(outcome).toEqual({ code: 0, stdout: "0 errors, 0 warnings in 2 files (2 clean)\n", stderr: "" });
  });

  it("sorts issues by position, suggests likely names and gives no advice about a repeated row's values", async () => {
    const document = documentWith((doc) => {
      const [, second, , , , , , , , last] = doc.comparisons;
      if (second === undefined || last === undefined) throw new Error("sample too small");
      second.compareAgainst = ["claude-code-docs-skil"];
      last.id = "codex-builder";
      const audience = doc.filters[2];
      if (audience) audience.field = "stauts";
    });
    write("advice.json", document);
    const outcome = await run(["check", "advice.json", "--curated", "audience"]);
    expect(outcome.code).toBe(1);
    const lines = outcome.stdout.trimEnd().split("\n").slice(0, -1);
    const places = lines.map((line) => line.split("  ")[0]?.split(":").slice(1).map(Number) ?? []);
    const sorted = [...places].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
    expect(places).toEqual(sorted);
    expect(lines.map((line) => line.split(/\s+/)[2])).toEqual([
      "UNKNOWN_ROW_REFERENCE",
      "UNKNOWN_ROW_REFERENCE",
      "UNKNOWN_FILTER_FIELD",
      "UNKNOWN_COMPARE_AGAINST",
      "DUPLICATE_ROW_ID",
    ]);
    expect(lines[2]).toContain('filters on "stauts", which is no row field; did you mean "status"?');
    expect(lines[3]).toContain('did you mean "claude-code-docs-skill"?');
    expect(lines[0]).toContain('Row ids are repeated ("codex-builder" at /comparisons/9)');
  });
});
