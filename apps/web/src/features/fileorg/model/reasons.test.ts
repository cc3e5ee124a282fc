import {
  REVIEW_REASON_LABELS,
  BUCKET_LABELS as SERVER_BUCKETS,
  labelReason as serverLabel,
} from "@vetted/fileorg";
import { describe, expect, it } from "vitest";
import { BUCKET_LABELS, formatBytes, labelReason, REASON_LABELS } from "./reasons.js";

describe("reasons in words", () => {
  it("says every reason and bucket as the server does", () => {
    expect(REASON_LABELS).toEqual(REVIEW_REASON_LABELS);
    expect(BUCKET_LABELS).toEqual(SERVER_BUCKETS);
    for (const code of ["LOW_CONFIDENCE", "DUPLICATE_TARGET", "some-new_code"]) {
      expect(labelReason(code)).toBe(serverLabel(code));
    }
  });
  it("formats sizes", () => {
    expect(formatBytes(12)).toBe("12 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(5 * 1024 * 1024)).toBe("5.0 MiB");
  });
});
