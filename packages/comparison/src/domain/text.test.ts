import { describe, expect, it } from "vitest";
import { createLargeDocument, createSampleDocument } from "../tests/fixtures.js";
import { locateIssues, validateText } from "./text.js";

const sampleText = JSON.stringify(createSampleDocument(), null, 2);

function lineOf(text: string, needle: string): number {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`${needle} not in text`);
  return text.slice(0, index).split("\n").length;
}

describe("validateText", () => {
  it("accepts a valid text and returns the parsed document", () => {
    expect(validateText(sampleText)).toEqual({ ok: true, value: createSampleDocument() });
  });

  it("reports a syntax error as an issue at its line and column", () => {
    const broken = sampleText.replace('"comparisonVersion": 1,', '"comparisonVersion": 1');
    const result = validateText(broken, "comparison.json");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toEqual([
      expect.objectContaining({
        code: "INVALID_JSON",
        severity: "error",
        pointer: "",
        line: lineOf(broken, '"filters"'),
        column: 3,
        file: "comparison.json",
        params: expect.objectContaining({ error: "CommaExpected" }),
      }),
    ]);
    expect(result.issues[0]?.message).toContain("add a comma");
  });

  it("reports an empty text as a syntax issue", () => {
    const result = validateText("  \n");
    expect(result.ok ? [] : result.issues.map((issue) => issue.code)).toEqual(["INVALID_JSON"]);
  });

  it("locates every schema issue: values at the value, unknown keys at the key, missing fields at the object", () => {
    const document = createSampleDocument() as unknown as { comparisons: Array<Record<string, unknown>> };
    const [planned, renamed] = [document.comparisons[4], document.comparisons[5]];
    if (!planned || !renamed) throw new Error("fixture too small");
    planned.status = "later";
    renamed.readonly = renamed.readOnly;
    delete renamed.readOnly;
    const text = JSON.stringify(document, null, 2);
    const result = validateText(text);
    if (result.ok) throw new Error("expected issues");
    const byCode = Object.fromEntries(result.issues.map((issue) => [issue.code, issue]));
    expect(byCode.INVALID_ENUM).toMatchObject({
      pointer: "/comparisons/4/status",
      line: lineOf(text, '"later"'),
      column: 17,
    });
    expect(byCode.UNKNOWN_KEY).toMatchObject({
      pointer: "/comparisons/5/readonly",
      line: lineOf(text, '"readonly"'),
      column: 7,
    });
    expect(byCode.MISSING_FIELD).toMatchObject({ pointer: "/comparisons/5/readOnly", column: 5 });
    expect(byCode.MISSING_FIELD?.line).toBe(lineOf(text, '"recommendedPack": "mcp-readonly-skill-pack"') - 1);
  });

  it("locates issues deep in a generated 1,000-row text, sorted by position", () => {
    const document = createLargeDocument(1000) as unknown as { comparisons: Array<Record<string, unknown>> };
    const row = document.comparisons[998];
    if (!row) throw new Error("fixture too small");
    row.smokeCommand = "";
    row.starterKind = "plugin";
    const text = JSON.stringify(document, null, 2);
    const result = validateText(text, "big.json");
    if (result.ok) throw new Error("expected issues");
    expect(result.issues.map((issue) => [issue.code, issue.line, issue.column, issue.file])).toEqual([
      ["EMPTY_STRING", lineOf(text, '"smokeCommand": ""'), 23, "big.json"],
      ["INVALID_ENUM", lineOf(text, '"plugin"'), 22, "big.json"],
    ]);
  });

  it("keeps positions right after a byte order mark", () => {
    const result = validateText(
      `\uFEFF{"$schema": "x", "comparisonVersion": 0, "filters": [], "comparisons": []}`,
    );
    if (result.ok) throw new Error("expected issues");
    expect(result.issues[0]).toMatchObject({ code: "OUT_OF_RANGE", line: 1, column: 39 });
  });
});

describe("locateIssues", () => {
  it("places an issue whose pointer leads nowhere at its nearest ancestor", () => {
    const [issue] = locateIssues('{\n  "filters": []\n}', [
      { code: "DUPLICATE_FILTER_ID", severity: "error", pointer: "/filters/3/id", message: "", params: {} },
    ]);
    expect(issue).toMatchObject({ line: 2, column: 14 });
  });
});

describe("validateText on deeply nested text", () => {
  it("reports NESTING_TOO_DEEP at the first bracket past the limit instead of overflowing the stack", () => {
    const deep = `{"comparisons":\n${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const result = validateText(deep, "deep.json");
    expect(result).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({
          code: "NESTING_TOO_DEEP",
          severity: "error",
          pointer: "",
          params: { limit: 64, offset: 16 + 63 },
          line: 2,
          column: 64,
          file: "deep.json",
        }),
      ],
    });
  });

  it("does not count brackets inside strings and accepts text at the limit", () => {
    const document = createSampleDocument();
    const first = document.comparisons[0];
    if (first === undefined) throw new Error("the sample has rows");
    const inString = JSON.stringify({ ...document, comparisons: [{ ...first, label: "[{".repeat(5000) }] });
    expect(validateText(inString).ok).toBe(true);
    const atLimit = `${"[".repeat(64)}${"]".repeat(64)}`;
    const result = validateText(atLimit);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((issue) => issue.code)).not.toContain("NESTING_TOO_DEEP");
  });
});
