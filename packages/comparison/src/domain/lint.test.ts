import { describe, expect, it } from "vitest";
import { createLargeDocument, createSampleDocument } from "../tests/fixtures.js";
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

const codes = (document: ComparisonDocument, options = {}) =>
  lint(document, options).map((issue) => [issue.code, issue.severity, issue.pointer]);

describe("lint", () => {
  it("finds nothing wrong in a generated 1,000-row document", () => {
    expect(lint(createLargeDocument(1000))).toEqual([]);
  });

  it("warns, by default, that the sample's hand-curated group is not derived from its field", () => {
    expect(codes(createSampleDocument())).toEqual([
      ["FILTER_VALUE_NOT_DERIVED", "warning", "/filters/2/values/0/id"],
      ["FILTER_VALUE_NOT_DERIVED", "warning", "/filters/2/values/1/id"],
    ]);
  });

  it("stays quiet about a group marked hand-curated while still checking the other groups", () => {
    const document = sample((doc) => {
      at(doc.filters, 0).values.push({ id: "vscode", label: "VS Code", comparisonIds: ["codex-builder"] });
    });
    expect(codes(document, { curatedGroups: ["audience"] })).toEqual([
      ["FILTER_VALUE_NOT_DERIVED", "warning", "/filters/0/values/5/id"],
    ]);
  });

  it("still checks references in a hand-curated group", () => {
    const document = sample((doc) => {
      at(at(doc.filters, 2).values, 0).comparisonIds.push("ghost");
    });
    expect(codes(document, { curatedGroups: ["audience"] })).toEqual([
      ["UNKNOWN_ROW_REFERENCE", "error", "/filters/2/values/0/comparisonIds/2"],
    ]);
  });

  it("reports duplicate ids of rows, groups and values within a group", () => {
    const document = sample((doc) => {
      at(doc.comparisons, 9).id = "codex-builder";
      at(doc.filters, 1).id = "host";
      at(at(doc.filters, 2).values, 1).id = "newcomers";
    });
    const issues = lint(document, {
      curatedGroups: ["audience"],
      severities: { FILTER_VALUE_MISMATCH: "off", UNKNOWN_ROW_REFERENCE: "off" },
    });
    expect(issues.map((issue) => [issue.code, issue.pointer])).toEqual([
      ["DUPLICATE_ROW_ID", "/comparisons/9/id"],
      ["DUPLICATE_FILTER_ID", "/filters/1/id"],
      ["DUPLICATE_VALUE_ID", "/filters/2/values/1/id"],
    ]);
    expect(issues[0]?.message).toBe(
      'Row id "codex-builder" is already used by /comparisons/0; row ids must be unique.',
    );
  });

  it("reports comparisons against unknown rows and against the row itself", () => {
    const document = sample((doc) => {
      at(doc.comparisons, 0).compareAgainst = ["codex-builder", "claude-code-builder", "gemini-builder"];
    });
    expect(codes(document, { curatedGroups: ["audience"] })).toEqual([
      ["SELF_COMPARISON", "error", "/comparisons/0/compareAgainst/0"],
      ["UNKNOWN_COMPARE_AGAINST", "error", "/comparisons/0/compareAgainst/2"],
    ]);
  });

  it("refuses a filter field that is no row field or holds a list", () => {
    const document = sample((doc) => {
      at(doc.filters, 0).field = "host";
      at(doc.filters, 1).field = "bestWhen";
    });
    const issues = lint(document, { curatedGroups: ["audience"] });
    expect(issues.map((issue) => issue.code)).toEqual(["UNKNOWN_FILTER_FIELD", "FILTER_FIELD_NOT_SCALAR"]);
    expect(issues[0]?.message).toContain("use one of id, label, status, starterKind");
  });

  it("reports a derived value listing a row of another value, and a row its value forgot", () => {
    const document = sample((doc) => {
      const codex = at(at(doc.filters, 0).values, 0);
      codex.comparisonIds = ["codex-builder", "mcp-readonly-skill"];
    });
    const issues = lint(document, { curatedGroups: ["audience"] });
    expect(issues.map((issue) => [issue.code, issue.pointer])).toEqual([
      ["FILTER_VALUE_MISMATCH", "/filters/0/values/0/comparisonIds/1"],
      ["FILTER_VALUE_MISMATCH", "/filters/0/values/0/comparisonIds"],
    ]);
    expect(issues[0]?.message).toBe(
      '"host/codex" lists row "mcp-readonly-skill", whose hostFamily is "mcp"; list it under that value instead.',
    );
    expect(issues[1]?.params).toMatchObject({ missing: ["codex-docs-skill"] });
  });

  it("applies configured severities and turns rules off", () => {
    const document = createSampleDocument();
    expect(codes(document, { severities: { FILTER_VALUE_NOT_DERIVED: "error" } })[0]?.[1]).toBe("error");
    expect(codes(document, { severities: { FILTER_VALUE_NOT_DERIVED: "off" } })).toEqual([]);
  });
});
