import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema.js";
import { bulkTarget, matchingCount, triageWords } from "./BulkEdit.js";

type Summary = components["schemas"]["ReviewSummary"];
const summary: Summary = {
  total: 358,
  needing_attention: 25,
  buckets: { blocked: 0, conflict: 12, needs_review: 13, auto_safe: 333 },
  top_reasons: [],
};

describe("the bulk edit bar", () => {
  it("acts on the selection, or on every row matching the filters (all rows when none narrows them)", () => {
    expect(bulkTarget({}, new Set(), false)).toBeUndefined();
    expect(bulkTarget({}, new Set(["r1", "r2"]), false)).toEqual({ row_ids: ["r1", "r2"] });
    expect(bulkTarget({ bucket: "needs_review", sort: "-size" }, new Set(["r1"]), true)).toEqual({
      filter: { bucket: "needs_review" },
    });
    expect(bulkTarget({ sort: "-size" }, new Set(), true)).toEqual({ all: true });
  });

  it("counts the matching rows when it knows them: all loaded, or a bucket the summary counts", () => {
    expect(matchingCount({ q: "x" }, 40, true, summary)).toBe(40);
    expect(matchingCount({ bucket: "auto_safe" }, 100, false, summary)).toBe(333);
    expect(matchingCount({}, 100, false, summary)).toBe(358);
    expect(matchingCount({ bucket: "auto_safe", q: "x" }, 100, false, summary)).toBeUndefined();
    expect(matchingCount({}, 100, false, undefined)).toBeUndefined();
  });

  it("says what it did, by name for one row and by count for many or for the matching rows", () => {
    const names = new Map([["r1", "report.txt"]]);
    expect(triageWords({ action: "skip", row_ids: ["r1"] }, names)).toBe("Skipped report.txt");
    expect(triageWords({ action: "approve", row_ids: ["r1", "r2"] }, names)).toBe("Approved 2 rows");
    const result = { matched_count: 333, changed_count: 333, applied_count: 333, revision: 2, summary };
    expect(triageWords({ action: "approve", filter: { bucket: "auto_safe" } }, names, result)).toBe(
      "Approved 333 matching rows",
    );
    expect(triageWords({ action: "set_target", all: true, value: "x/" }, names)).toBe(
      "Set the target of the matching rows",
    );
  });
});
