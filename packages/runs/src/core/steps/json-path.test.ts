import { describe, expect, it } from "vitest";
import { readJsonPath } from "./json-path.js";

describe("readJsonPath", () => {
  const doc = { a: { b: [{ id: "x" }, { id: "y" }] }, "odd key": 1 };

  it("reads dotted, indexed and quoted segments", () => {
    expect(readJsonPath(doc, "$.a.b[1].id")).toEqual({ found: true, value: "y" });
    expect(readJsonPath(doc, '$["odd key"]')).toEqual({ found: true, value: 1 });
    expect(readJsonPath(doc, "$")).toEqual({ found: true, value: doc });
  });

  it("reports a missing segment or a malformed path as not found", () => {
    expect(readJsonPath(doc, "$.a.c").found).toBe(false);
    expect(readJsonPath(doc, "$.a.b[5]").found).toBe(false);
    expect(readJsonPath(doc, "a.b").found).toBe(false);
    expect(readJsonPath(doc, "$..a").found).toBe(false);
  });
});
