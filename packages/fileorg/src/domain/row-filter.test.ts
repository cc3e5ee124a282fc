import { describe, expect, it } from "vitest";
import { ViewItem } from "./preferences.js";
import { REVIEW_REASON_LABELS } from "./review-priority.js";
import { checkViewFilter, isKnownReason, KNOWN_REASON_CODES, ReasonCode } from "./row-filter.js";
import { selectionIssues } from "./triage-selection.js";

describe("filter reasons", () => {
  it("knows every labelled reason and the bucket function's own, and nothing else", () => {
    for (const code of Object.keys(REVIEW_REASON_LABELS)) expect(isKnownReason(code)).toBe(true);
    expect(isKnownReason("LOW_CONFIDENCE")).toBe(true);
    expect(isKnownReason("low_confidence")).toBe(false);
    expect(KNOWN_REASON_CODES).toEqual([...KNOWN_REASON_CODES].sort());
    const refused = ReasonCode.safeParse("MAYBE");
    expect(refused.error?.issues[0]?.message).toBe(
      `unknown reason "MAYBE"; use one of ${KNOWN_REASON_CODES.join(", ")}`,
    );
  });
});

describe("saved view checks", () => {
  const view = (filter: unknown) => ViewItem.parse({ name: "v", filter });

  it("accepts a category the known list holds — custom ones included — and names the list otherwise", () => {
    expect(checkViewFilter(view({ category: "receipts" }), ["documents", "receipts"])).toEqual([]);
    expect(checkViewFilter(view({ category: "receipts" }), ["documents", "images"])).toEqual([
      {
        pointer: "/filter/category",
        message: 'unknown category "receipts"; use one of documents, images',
      },
    ]);
    expect(checkViewFilter(view({}), [])).toEqual([]);
  });

  it("refuses an unknown filter field naming the fields a view filter has", () => {
    const parsed = ViewItem.safeParse({ name: "v", filter: { bucket: "auto_safe", size_over: 5 } });
    expect(parsed.error?.issues[0]?.message).toBe(
      'unknown filter field "size_over"; use bucket, status, category, reason, q',
    );
  });
});

describe("batch triage selection", () => {
  it("needs exactly one of row_ids, a filter naming a field, or all: true", () => {
    expect(selectionIssues({ row_ids: ["row_1"] })).toEqual([]);
    expect(selectionIssues({ filter: { q: "x" } })).toEqual([]);
    expect(selectionIssues({ all: true })).toEqual([]);
    expect(selectionIssues({ all: true, filter: {} })).toEqual([]);
    expect(selectionIssues({ filter: {} })[0]?.message).toMatch(/^an empty filter selects nothing/);
    expect(selectionIssues({ filter: { q: undefined } })[0]?.path).toEqual(["filter"]);
    expect(selectionIssues({})[0]?.path).toEqual(["row_ids"]);
    expect(selectionIssues({ row_ids: ["row_1"], all: true })[0]?.message).toMatch(/only one of/);
  });
});
