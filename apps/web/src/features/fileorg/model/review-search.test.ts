import { ViewItem } from "@vetted/fileorg";
import { describe, expect, it } from "vitest";
import {
  manifestQuery,
  parseReviewSearch,
  parseSort,
  triageFilter,
  viewFromSearch,
} from "./review-search.js";

describe("review search params", () => {
  it("keeps valid params and drops invalid ones", () => {
    expect(
      parseReviewSearch({
        bucket: "needs_review",
        reason: "LOW_CONFIDENCE",
        category: "images",
        q: "  invoice ",
        sort: "-size",
        row: "r1",
      }),
    ).toEqual({
      bucket: "needs_review",
      reason: "LOW_CONFIDENCE",
      category: "images",
      q: "invoice",
      sort: "-size",
      row: "r1",
    });
    expect(parseReviewSearch({ bucket: "nope", reason: "lower", sort: "colour", q: "", view: 3 })).toEqual(
      {},
    );
  });

  it("builds the manifest query, with the sort as field:direction", () => {
    expect(manifestQuery({ bucket: "conflict", q: "a", sort: "-size", row: "r9" }, 200)).toEqual({
      limit: 200,
      bucket: "conflict",
      text: "a",
      sort: "size:desc",
    });
    expect(parseSort("confidence")).toEqual({ field: "confidence", direction: "asc" });
  });

  it("turns filters into a triage filter only when they narrow the rows", () => {
    expect(triageFilter({ sort: "size" })).toBeUndefined();
    expect(triageFilter({ category: "images", q: "x" })).toEqual({ category: "images", q: "x" });
  });

  it("builds a saved view the server's schema accepts", () => {
    const body = viewFromSearch("Big images", { category: "images", sort: "-size", bucket: "needs_review" });
    expect(ViewItem.parse(body)).toMatchObject({
      name: "Big images",
      filter: { category: "images", bucket: "needs_review" },
      sort: [{ field: "size", direction: "desc" }],
    });
  });
});
