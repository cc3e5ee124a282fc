import { describe, expect, it } from "vitest";
import { createSampleDocument } from "../tests/fixtures.js";
import { findTooDeepOffset } from "./depth.js";
import { findDuplicateKeys, scanJsonText } from "./duplicate-keys.js";
import { validateText } from "./text.js";

/** The sample document as text, with `"status": "partial",` inserted right after the first row's id. */
function textWithRepeatedStatus(): string {
  const text = JSON.stringify(createSampleDocument(), null, 2);
  const id = '"id": "codex-builder",';
  return text.replace(id, `${id}\n      "status": "partial",`);
}

function positionOf(text: string, needle: string, from = 0): { line: number; column: number } {
  const offset = text.indexOf(needle, from);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

describe("duplicate keys", () => {
  it("reports a repeated key with the positions of the first and of the repeat", () => {
    const text = textWithRepeatedStatus();
    const result = validateText(text, "doc.json");
    if (result.ok) throw new Error("expected a DUPLICATE_KEY issue");
    const firstOffset = text.indexOf('"status"', text.indexOf('"id": "codex-builder"'));
    const offset = text.indexOf('"status"', firstOffset + 1);
    const first = positionOf(text, '"status"', firstOffset);
    const repeat = positionOf(text, '"status"', offset);
    expect(result.issues).toEqual([
      {
        code: "DUPLICATE_KEY",
        severity: "error",
        pointer: "/comparisons/0/status",
        message: `Key "status" is repeated in this object (first at line ${first.line}, column ${first.column}); JSON parsers silently keep only the last value, so remove or rename one of them.`,
        params: {
          key: "status",
          firstLine: first.line,
          firstColumn: first.column,
          firstOffset,
          offset,
        },
        file: "doc.json",
        ...repeat,
      },
    ]);
    expect(repeat.line).toBeGreaterThan(first.line);
  });

  it("sorts duplicate keys and schema issues together by position", () => {
    const text = '{"$schema": "x", "comparisonVersion": 0, "filters": [], "$schema": "y", "comparisons": {}}';
    const result = validateText(text);
    if (result.ok) throw new Error("expected issues");
    expect(result.issues.map((issue) => [issue.code, issue.column - 1])).toEqual([
      ["OUT_OF_RANGE", text.indexOf("0")],
      ["DUPLICATE_KEY", text.lastIndexOf('"$schema"')],
      ["INVALID_TYPE", text.indexOf("{}")],
    ]);
  });

  it("compares keys after unescaping, reports every repeat against the first, and escapes pointers", () => {
    const text = '{"a/b": 1, "x": {"k": 1, "\\u006b": 2, "k": 3}, "a\\/b": 4}';
    expect(findDuplicateKeys(text)).toEqual([
      { key: "k", pointer: "/x/k", offset: 25, firstOffset: 17 },
      { key: "k", pointer: "/x/k", offset: 38, firstOffset: 17 },
      { key: "a/b", pointer: "/a~1b", offset: 47, firstOffset: 1 },
    ]);
  });

  it("treats the same key in sibling objects and in nested objects as distinct", () => {
    expect(findDuplicateKeys('[{"id": 1}, {"id": 2, "o": {"id": 3}}]')).toEqual([]);
    expect(validateText(JSON.stringify(createSampleDocument())).ok).toBe(true);
  });
});

describe("scanJsonText", () => {
  it("judges nesting exactly as findTooDeepOffset of @vetted/store does", () => {
    const texts = [
      `${"[".repeat(64)}${"]".repeat(64)}`,
      `${"[".repeat(65)}${"]".repeat(65)}`,
      `{"a": ${"[".repeat(70)}`,
      `["[[[[", "\\"[[[", "\\\\", ${"{".repeat(3)}"k": 1}}}]`,
      `"unterminated [[[[ ${"[".repeat(80)}`,
      `]]]]${"[".repeat(65)}`,
      `{"x": "\\\\\\"", "y": ${"[".repeat(66)}`,
      JSON.stringify(createSampleDocument()),
    ];
    for (const limit of [1, 3, 64]) {
      for (const text of texts) {
        expect([limit, text, scanJsonText(text, limit).tooDeepOffset]).toEqual([
          limit,
          text,
          findTooDeepOffset(text, limit),
        ]);
      }
    }
  });

  it("stops at the first bracket past the limit", () => {
    const text = `{"a": 1, "a": 2, "b": [[[{"a": 1, "a": 2}]]]}`;
    const scan = scanJsonText(text, 3);
    expect(scan.tooDeepOffset).toBe(text.indexOf("[[[") + 2);
    expect(scan.duplicates.map((duplicate) => duplicate.pointer)).toEqual(["/a"]);
  });
});
