import { describe, expect, it } from "vitest";
import { RowPatch } from "./manifest.js";
import { sanitizeSegment } from "./naming-template.js";
import { MAX_PATH_BYTES, MAX_SEGMENT_BYTES, pathLengthProblem, truncateUtf8 } from "./path-limits.js";
import { resolveTargetPath } from "./template.js";

describe("path length limits", () => {
  it("sanitizes a 200 KB segment in linear time into at most 255 bytes", () => {
    // 30 KB first: a quadratic cut takes seconds on it already and fails here before the 200 KB inputs.
    const inputs = [
      "a".repeat(30_000),
      "a".repeat(200_000),
      `${"é".repeat(100_000)}.jpeg`,
      `a${" .".repeat(100_000)}b`,
      `${"😀".repeat(50_000)}`,
      `x${".".repeat(200_000)}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      const seg = sanitizeSegment(input, true);
      const elapsed = performance.now() - started;
      // Quadratic shortening took over 60 s on 200 KB; linear takes milliseconds. The bound is loose on
      // purpose: a loaded CI machine must not fail it, the quadratic code still does.
      expect(elapsed).toBeLessThan(3_000);
      expect(Buffer.byteLength(seg)).toBeLessThanOrEqual(MAX_SEGMENT_BYTES);
      expect(seg.length).toBeGreaterThan(0);
      expect(sanitizeSegment(seg, true)).toBe(seg);
    }
    expect(sanitizeSegment(`${"é".repeat(100_000)}.jpeg`, true).endsWith(".jpeg")).toBe(true);
  });

  it("never cuts a surrogate pair in half", () => {
    expect(truncateUtf8("😀😀", 6)).toBe("😀");
    expect(truncateUtf8("aé", 2)).toBe("a");
  });

  it("names the limit when a path or a segment is too long", () => {
    expect(pathLengthProblem(`/${"a".repeat(255)}/b`)).toBeUndefined();
    expect(pathLengthProblem(`/${"a".repeat(256)}`)).toContain(`${MAX_SEGMENT_BYTES} bytes`);
    expect(pathLengthProblem(`/${"ab/".repeat(1400)}`)).toContain(`${MAX_PATH_BYTES} bytes`);
  });

  it("refuses a 60 KB edited target quickly, naming the limit", () => {
    const started = performance.now();
    const checked = resolveTargetPath("/out", `docs/${"x".repeat(60_000)}.txt`);
    expect(performance.now() - started).toBeLessThan(200);
    expect(checked).toEqual({ ok: false, message: expect.stringContaining("4096 bytes") });
    expect(resolveTargetPath(`/${"o".repeat(200)}`.repeat(30), "x.txt")).toMatchObject({ ok: false });
  });

  it("refuses an oversized target_path in a row patch", () => {
    const parsed = RowPatch.safeParse({ target_path: "y".repeat(60_000) });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain("4096 bytes");
    expect(RowPatch.safeParse({ target_path: `/x/${"é".repeat(128)}` }).success).toBe(false);
    expect(RowPatch.safeParse({ target_path: `/x/${"é".repeat(127)}` }).success).toBe(true);
  });
});
