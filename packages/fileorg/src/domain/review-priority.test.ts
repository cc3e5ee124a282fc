import { describe, expect, it } from "vitest";
import { buildRow } from "../tests/row-builder.js";
import { labelReason, orderForReview } from "./review-priority.js";

describe("review priority", () => {
  it("orders blocked, then conflicts, then rows needing review by confidence, then safe rows", () => {
    const safe = buildRow({ source_path: "/a", review_bucket: "auto_safe", confidence: 0.1 });
    const lowConf = buildRow({
      source_path: "/b",
      review_bucket: "needs_review",
      reason_codes: ["low_confidence"],
      confidence: 0.3,
    });
    const lowerConf = buildRow({
      source_path: "/c",
      review_bucket: "needs_review",
      reason_codes: ["low_confidence"],
      confidence: 0.2,
    });
    const disagrees = buildRow({
      source_path: "/d",
      review_bucket: "needs_review",
      reason_codes: ["LEARNED_DISAGREES"],
      confidence: 0.25,
    });
    const conflict = buildRow({
      source_path: "/e",
      review_bucket: "conflict",
      reason_codes: ["duplicate_target"],
    });
    const blocked = buildRow({ source_path: "/f", review_bucket: "blocked", reason_codes: ["unreadable"] });
    expect(
      orderForReview([safe, lowConf, lowerConf, disagrees, conflict, blocked]).map((r) => r.source_path),
    ).toEqual(["/f", "/e", "/c", "/d", "/b", "/a"]);
  });

  it("labels known and unknown reason codes for people", () => {
    expect(labelReason("LOW_CONFIDENCE")).toMatch(/confidence/);
    expect(labelReason("brand_new_code")).toBe("Brand new code");
  });
});
