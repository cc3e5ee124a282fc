import { describe, expect, it } from "vitest";
import { cloneJson, createLargeDocument, createSampleDocument } from "../tests/fixtures.js";
import type { Issue } from "./issues.js";
import { validate } from "./validate.js";

function issuesOf(input: unknown): readonly Issue[] {
  const result = validate(input);
  if (result.ok) throw new Error("expected the document to be invalid");
  return result.issues;
}

describe("validate", () => {
  it("accepts the sample document and returns it as the value", () => {
    const document = createSampleDocument();
    expect(validate(document)).toEqual({ ok: true, value: document });
  });

  it("accepts a generated 1,000-row document", () => {
    expect(validate(createLargeDocument(1000)).ok).toBe(true);
  });

  it("names the allowed values and the likely intended one for an enum outside its set", () => {
    const document = cloneJson(createSampleDocument()) as { comparisons: Array<Record<string, unknown>> };
    const row = document.comparisons[3];
    if (row) row.status = "suported now";
    expect(issuesOf(document)).toEqual([
      {
        code: "INVALID_ENUM",
        severity: "error",
        pointer: "/comparisons/3/status",
        message:
          '"suported now" is not an allowed status; use one of "supported now", "partial", "planned", "research only", "not now". Did you mean "supported now"?',
        params: {
          value: "suported now",
          allowed: ["supported now", "partial", "planned", "research only", "not now"],
          suggestion: "supported now",
        },
      },
    ]);
  });

  it("reports every issue of a document in one pass, in document order", () => {
    const document = cloneJson(createLargeDocument(1000)) as {
      comparisonVersion: unknown;
      filters: Array<Record<string, unknown>>;
      comparisons: Array<Record<string, unknown>>;
    };
    document.comparisonVersion = 0;
    const group = document.filters[1];
    if (group) group.label = "";
    const first = document.comparisons[10];
    const second = document.comparisons[998];
    if (!first || !second) throw new Error("fixture too small");
    delete first.smokeCommand;
    first.colour = "teal";
    second.hostFamily = "vscode";
    second.readOnly = "yes";
    second.safeClaims = ["fine", ""];
    expect(issuesOf(document).map((issue) => [issue.code, issue.pointer])).toEqual([
      ["OUT_OF_RANGE", "/comparisonVersion"],
      ["EMPTY_STRING", "/filters/1/label"],
      ["UNKNOWN_KEY", "/comparisons/10/colour"],
      ["MISSING_FIELD", "/comparisons/10/smokeCommand"],
      ["INVALID_ENUM", "/comparisons/998/hostFamily"],
      ["INVALID_TYPE", "/comparisons/998/readOnly"],
      ["EMPTY_STRING", "/comparisons/998/safeClaims/1"],
    ]);
  });

  it("names the unknown key, suggests the close allowed one and lists the allowed keys", () => {
    const document = cloneJson(createSampleDocument()) as { comparisons: Array<Record<string, unknown>> };
    const row = document.comparisons[0];
    if (!row) throw new Error("fixture too small");
    row.readonly = row.readOnly;
    delete row.readOnly;
    const [unknown, missing] = issuesOf(document);
    expect(unknown?.code).toBe("UNKNOWN_KEY");
    expect(unknown?.message).toContain('Unknown key "readonly" in row /comparisons/0');
    expect(unknown?.message).toContain('Did you mean "readOnly"?');
    expect(unknown?.params).toMatchObject({ key: "readonly", suggestion: "readOnly" });
    expect(missing).toMatchObject({
      code: "MISSING_FIELD",
      pointer: "/comparisons/0/readOnly",
      message: 'Missing required field "readOnly" in row /comparisons/0; expected true or false.',
      params: { field: "readOnly", expected: "boolean" },
    });
  });

  it("escapes keys in pointers as RFC 6901 requires", () => {
    const document = cloneJson(createSampleDocument()) as Record<string, unknown>;
    document["a/b~c"] = 1;
    expect(issuesOf(document)[0]?.pointer).toBe("/a~1b~0c");
  });

  it("tells a fractional version from a version below one", () => {
    const fractional = { ...createSampleDocument(), comparisonVersion: 1.5 };
    const zero = { ...createSampleDocument(), comparisonVersion: 0 };
    expect(issuesOf(fractional)[0]).toMatchObject({ code: "NOT_INTEGER", pointer: "/comparisonVersion" });
    expect(issuesOf(zero)[0]).toMatchObject({
      code: "OUT_OF_RANGE",
      params: { value: 0, minimum: 1 },
    });
  });

  it("reports a value that is not an object at all as one type issue", () => {
    expect(issuesOf([1, 2])).toEqual([
      {
        code: "INVALID_TYPE",
        severity: "error",
        pointer: "",
        message: "the document must be an object, not an array.",
        params: { expected: "object", received: "array" },
      },
    ]);
  });
});
