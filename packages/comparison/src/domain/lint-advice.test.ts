import { describe, expect, it } from "vitest";
import { createSampleDocument } from "../tests/fixtures.js";
import { lint } from "./lint.js";
import type { ComparisonDocument } from "./schema.js";

function sample(change: (document: ComparisonDocument) => void): ComparisonDocument {
  const document = createSampleDocument();
  change(document);
  return document;
}

function at<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`no item ${index}`);
  return item;
}

const curated = { curatedGroups: ["audience"] };

describe("lint advice", () => {
  it("suggests the row a misspelt filter reference most likely means, and does not call it missing too", () => {
    const document = sample((doc) => {
      at(at(doc.filters, 0).values, 0).comparisonIds[1] = "codex-dcos-skill";
    });
    const [issue, ...rest] = lint(document, curated);
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      code: "UNKNOWN_ROW_REFERENCE",
      pointer: "/filters/0/values/0/comparisonIds/1",
      params: { reference: "codex-dcos-skill", suggestion: "codex-docs-skill" },
    });
    expect(issue?.message).toBe(
      'Filter value "host/codex" lists "codex-dcos-skill", which is no row id of this document; did you mean "codex-docs-skill"?',
    );
  });

  it("suggests another row, never the row itself, for a misspelt compareAgainst entry", () => {
    const document = sample((doc) => {
      at(doc.comparisons, 0).compareAgainst = ["claude-code-bulder", "codex-buildr"];
    });
    const issues = lint(document, curated);
    expect(issues.map((issue) => [issue.code, issue.params.suggestion])).toEqual([
      ["UNKNOWN_COMPARE_AGAINST", "claude-code-builder"],
      ["UNKNOWN_COMPARE_AGAINST", undefined],
    ]);
    expect(issues[0]?.message).toBe(
      'Row "codex-builder" compares against "claude-code-bulder", which is no row id of this document; did you mean "claude-code-builder"?',
    );
    expect(issues[1]?.message).toBe(
      'Row "codex-builder" compares against "codex-buildr", which is no row id of this document.',
    );
  });

  it("suggests the row field a misspelt filter field most likely means", () => {
    const document = sample((doc) => {
      at(doc.filters, 0).field = "hostfamilly";
    });
    const [issue] = lint(document, curated);
    expect(issue).toMatchObject({ code: "UNKNOWN_FILTER_FIELD", params: { suggestion: "hostFamily" } });
    expect(issue?.message).toBe(
      'Filter group "host" filters on "hostfamilly", which is no row field; did you mean "hostFamily"?',
    );
  });

  it("lists the filterable fields when no field is close to a wrong one", () => {
    const document = sample((doc) => {
      at(doc.filters, 0).field = "colour";
    });
    const [issue] = lint(document, curated);
    expect(issue?.params.suggestion).toBeUndefined();
    expect(issue?.message).toMatch(/which is no row field; use one of id, label, status, /);
  });

  it("gives no derivation advice about a repeated row id, and names the repeat where a reference broke", () => {
    const document = sample((doc) => {
      at(doc.comparisons, 9).id = "codex-builder";
    });
    const issues = lint(document, curated);
    expect(issues.map((issue) => [issue.code, issue.pointer])).toEqual([
      ["DUPLICATE_ROW_ID", "/comparisons/9/id"],
      ["UNKNOWN_ROW_REFERENCE", "/filters/0/values/1/comparisonIds/2"],
      ["UNKNOWN_ROW_REFERENCE", "/filters/1/values/0/comparisonIds/3"],
    ]);
    expect(issues[1]?.message).toContain(
      'Row ids are repeated ("codex-builder" at /comparisons/9): if one of those rows should be "claude-code-mcp-builder", rename it.',
    );
    expect(issues[1]?.params.repeatedRows).toEqual(["/comparisons/9"]);
  });

  it("still reports a real mismatch of a row whose id is not repeated", () => {
    const document = sample((doc) => {
      at(doc.comparisons, 9).id = "codex-builder";
      at(doc.comparisons, 1).hostFamily = "mcp";
    });
    const mismatches = lint(document, curated).filter((issue) => issue.code === "FILTER_VALUE_MISMATCH");
    expect(mismatches.map((issue) => issue.pointer)).toEqual([
      "/filters/0/values/0/comparisonIds/1",
      "/filters/0/values/3/comparisonIds",
    ]);
  });
});
