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

  it("accepts exactly one of document and text", () => {
    expect(CheckComparisonInput.safeParse({ text: "{}" }).success).toBe(true);
    expect(CheckComparisonInput.safeParse({}).success).toBe(false);
    expect(CheckComparisonInput.safeParse({ text: "{}", document: {} }).success).toBe(false);
  });
});
