import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSampleDocument } from "../tests/fixtures.js";
import { checkFiles } from "./file-rules.js";

let dir = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "vetted-comparison-files-"));
  for (const row of createSampleDocument().comparisons) {
    if (row.id === "plain-docs-skill") continue;
    mkdirSync(join(dir, row.copyReadyPackPath), { recursive: true });
    mkdirSync(join(dir, "docs", row.id), { recursive: true });
    writeFileSync(join(dir, "docs", row.id, "README.md"), `# ${row.label}\n`);
  }
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("checkFiles", () => {
  it("reports the docs and pack paths missing under the base folder, skipping URLs", async () => {
    const issues = await checkFiles(createSampleDocument(), { baseDir: dir });
    expect(issues.map((issue) => [issue.code, issue.severity, issue.pointer])).toEqual([
      ["MISSING_DOC_FILE", "error", "/comparisons/7/recommendedDocs/0"],
      ["MISSING_PACK_PATH", "error", "/comparisons/7/copyReadyPackPath"],
    ]);
    expect(issues[0]?.message).toBe(
      `Recommended doc "docs/plain-docs-skill/README.md" of row "plain-docs-skill" does not exist (looked for ${join(dir, "docs/plain-docs-skill/README.md")}).`,
    );
  });

  it("ignores a #fragment and honours configured severities", async () => {
    const document = createSampleDocument();
    for (const row of document.comparisons)
      row.recommendedDocs = row.recommendedDocs.map((doc) => `${doc}#usage`);
    const issues = await checkFiles(document, {
      baseDir: dir,
      severities: { MISSING_DOC_FILE: "warning", MISSING_PACK_PATH: "off" },
    });
    expect(issues.map((issue) => [issue.code, issue.severity])).toEqual([["MISSING_DOC_FILE", "warning"]]);
  });
});
