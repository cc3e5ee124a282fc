import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  decideAfterAttempt,
  retryDelayMs,
  signatureHeader,
  verifySignature,
} from "./webhooks.js";

describe("webhook signatures", () => {
  it("signs t.body with HMAC-SHA256 as node:crypto computes it, and verifies it back", async () => {
    const header = await signatureHeader("s3cret-s3cret-s3cret", 1_700_000_000, '{"a":1}');
    const hex = createHmac("sha256", "s3cret-s3cret-s3cret").update('1700000000.{"a":1}').digest("hex");
    expect(header).toBe(`t=1700000000,v1=${hex}`);
    expect(await verifySignature(header, "s3cret-s3cret-s3cret", '{"a":1}', { nowS: 1_700_000_010 })).toBe(
      true,
    );
  });

  it("rejects another body, another secret, or a stale timestamp", async () => {
    const header = await signatureHeader("s3cret-s3cret-s3cret", 1_700_000_000, "{}");
    expect(await verifySignature(header, "s3cret-s3cret-s3cret", "{ }", { nowS: 1_700_000_000 })).toBe(false);
    expect(await verifySignature(header, "other-other-other", "{}", { nowS: 1_700_000_000 })).toBe(false);
    expect(await verifySignature(header, "s3cret-s3cret-s3cret", "{}", { nowS: 1_700_001_000 })).toBe(false);
  });
});

describe("webhook retry schedule", () => {
  const policy = { baseMs: 1000, maxMs: 60_000, windowMs: 86_400_000 };

  it("doubles the delay each attempt, with jitter that never lets a delay shrink", () => {
    for (let n = 1; n < 6; n++) {
      expect(retryDelayMs(n + 1, policy, 0)).toBeGreaterThanOrEqual(retryDelayMs(n, policy, 0.999));
    }
    expect(retryDelayMs(1, policy, 0)).toBe(500);
    expect(retryDelayMs(30, policy, 0.999)).toBeLessThanOrEqual(60_000);
  });

  it("gives up once the next attempt would fall past the 24 h window", () => {
    const createdAt = 0;
    const late = decideAfterAttempt({
      ok: false,
      attempts: 30,
      createdAt,
      now: 86_399_000,
      policy: DEFAULT_RETRY_POLICY,
      random: 0.5,
    });
    expect(late).toEqual({ status: "failed" });
    const early = decideAfterAttempt({
      ok: false,
      attempts: 1,
      createdAt,
      now: 1000,
      policy: DEFAULT_RETRY_POLICY,
      random: 0,
    });
    expect(early).toEqual({ status: "pending", nextAttemptAt: 6000 });
    expect(decideAfterAttempt({ ok: true, attempts: 1, createdAt, now: 1, policy, random: 0 })).toEqual({
      status: "delivered",
    });
  });
});
