import { describe, expect, it } from "vitest";
import { type BucketInput, computeReviewBucket } from "./review-bucket.js";

const base: BucketInput = {
  blocked: false,
  openConflicts: 0,
  confidence: 0.95,
  edited: false,
  action: "move",
};

describe("review buckets", () => {
  it("puts a confident, unedited, conflict-free row in auto_safe", () => {
    expect(computeReviewBucket(base)).toEqual({ bucket: "auto_safe", reasons: [] });
  });

  it("orders blocked over conflict over needs_review", () => {
    expect(computeReviewBucket({ ...base, blocked: true, openConflicts: 2, confidence: 0.1 }).bucket).toBe(
      "blocked",
    );
    expect(computeReviewBucket({ ...base, openConflicts: 1, confidence: 0.1, edited: true }).bucket).toBe(
      "conflict",
    );
  });

  it("sends low confidence, edits and extra reasons to needs_review with their reasons", () => {
    expect(computeReviewBucket({ ...base, confidence: 0.4 })).toEqual({
      bucket: "needs_review",
      reasons: ["LOW_CONFIDENCE"],
    });
    expect(computeReviewBucket({ ...base, edited: true, reviewReasons: ["RULE_X"] }).reasons).toEqual([
      "EDITED",
      "RULE_X",
    ]);
  });
});
