import { describe, expect, it } from "vitest";
import { createSampleDocument } from "../tests/fixtures.js";
import { CheckComparisonInput, checkComparison } from "./check.js";

describe("checkComparison", () => {
  it("answers schema issues and no lint for an invalid document", () => {
    const document = { ...createSampleDocument(), comparisonVersion: 0 };
    expect(checkComparison({ document })).toMatchObject({
      ok: false,
      valid: false,
      issues: [{ code: "OUT_OF_RANGE", pointer: "/comparisonVersion" }],
      lint_issues: [],
      errors: 1,
      warnings: 0,
    });
  });

  it("answers located lint issues for a valid text, honouring curated groups", () => {
    const text = JSON.stringify(createSampleDocument(), null, 2);
    const flagged = checkComparison({ text });
    expect(flagged).toMatchObject({ ok: true, valid: true, errors: 0, warnings: 2 });
    expect(flagged.lint_issues[0]).toMatchObject({ code: "FILTER_VALUE_NOT_DERIVED", column: 17 });
    expect(checkComparison({ text, curated_groups: ["audience"] }).warnings).toBe(0);
    expect(checkComparison({ text, lint: false }).lint_issues).toEqual([]);
  });

  it("sorts the lint issues of a text by position, and reports a duplicate key as a schema issue", () => {
    const document = createSampleDocument();
    const [first] = document.comparisons;
    if (first === undefined) throw new Error("sample too small");
    first.compareAgainst = ["ghost"];
    const text = JSON.stringify(document, null, 2);
    const lines = checkComparison({ text }).lint_issues.map((issue) => issue.line ?? 0);
    expect(lines).toHaveLength(3);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
    const repeated = checkComparison({ text: '{"$schema": "x", "$schema": "y"}' });
    expect(repeated.issues.map((issue) => issue.code)).toContain("DUPLICATE_KEY");
  });

  it("accepts exactly one of document and text", () => {
    expect(CheckComparisonInput.safeParse({ text: "{}" }).success).toBe(true);
    expect(CheckComparisonInput.safeParse({}).success).toBe(false);
    expect(CheckComparisonInput.safeParse({ text: "{}", document: {} }).success).toBe(false);
  });
});
