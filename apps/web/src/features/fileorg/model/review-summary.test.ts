import { describe, expect, it } from "vitest";
import {
  attentionPhrase,
  bucketOption,
  bucketPhrase,
  nextAction,
  type ReviewCounts,
  topReasons,
} from "./review-summary.js";

function counts(buckets: Partial<ReviewCounts["buckets"]>): ReviewCounts {
  const b = { blocked: 0, conflict: 0, needs_review: 0, auto_safe: 0, ...buckets };
  return {
    total: b.blocked + b.conflict + b.needs_review + b.auto_safe,
    needing_attention: b.blocked + b.conflict + b.needs_review,
    buckets: b,
    top_reasons: [
      { code: "OPEN_CONFLICT", label: "A conflict", count: 12 },
      { code: "APPROVED", label: "Approved", count: 4 },
      { code: "LOW_CONFIDENCE", label: "Low", count: 3 },
      { code: "UNKNOWN_TYPE", label: "Unknown", count: 0 },
      { code: "MIME_FROM_EXTENSION", label: "Guessed", count: 2 },
    ],
  };
}

describe("review summary", () => {
  it("suggests conflicts first, then review, then apply", () => {
    expect(nextAction(counts({ conflict: 12, needs_review: 13, auto_safe: 300 }), 6)).toEqual({
      kind: "resolve_conflicts",
      conflicts: 6,
      rows: 12,
      label: "Resolve 6 conflicts",
    });
    expect(nextAction(counts({ conflict: 2 }), undefined).label).toBe("Resolve 2 conflicts");
    expect(nextAction(counts({ needs_review: 1, auto_safe: 3 }), 0)).toEqual({
      kind: "review",
      rows: 1,
      label: "Review 1 file",
    });
    expect(nextAction(counts({ blocked: 2, auto_safe: 280 }), 0)).toEqual({
      kind: "apply",
      rows: 280,
      label: "Apply 280 auto-safe files",
    });
  });
  it("says what needs a person and counts each bucket", () => {
    expect(attentionPhrase(counts({ conflict: 12, needs_review: 13, auto_safe: 300 }))).toBe(
      "25 files need a person: 13 to review, 12 in conflict.",
    );
    expect(attentionPhrase(counts({ blocked: 1 }))).toBe("1 file needs a person: 1 blocked.");
    expect(attentionPhrase(counts({ auto_safe: 3 }))).toBe(
      "Nothing needs a person: every file is auto-safe.",
    );
    expect(bucketPhrase("auto_safe", 300)).toBe("300 auto-safe");
    expect(bucketOption("conflict", counts({ conflict: 12 }))).toBe("conflict (12)");
    expect(bucketOption("conflict", undefined)).toBe("conflict");
  });
  it("offers the most frequent reasons, not what a person did", () => {
    expect(topReasons(counts({})).map((r) => r.code)).toEqual([
      "OPEN_CONFLICT",
      "LOW_CONFIDENCE",
      "MIME_FROM_EXTENSION",
    ]);
    const notesFirst = {
      ...counts({}),
      top_reasons: [
        { code: "MIME_FROM_EXTENSION", label: "G", count: 9 },
        { code: "UNKNOWN_TYPE", label: "U", count: 1 },
      ],
    };
    expect(topReasons(notesFirst).map((r) => r.code)).toEqual(["UNKNOWN_TYPE", "MIME_FROM_EXTENSION"]);
    expect(topReasons(counts({}), 1).map((r) => r.code)).toEqual(["OPEN_CONFLICT"]);
  });
});
