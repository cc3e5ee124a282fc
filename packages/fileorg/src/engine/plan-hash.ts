/**
 * The plan hash: an order-independent digest of what apply would do, kept as an XOR of per-row SHA-256
 * digests so one edited row updates it without reading the rest of the manifest. Hashing is Node's
 * (`node:crypto`), so it lives in the engine, beside its callers, not in the pure domain.
 */
import { createHash, hash } from "node:crypto";

/** What of a row the plan hash covers. */
export interface PlanRow {
  rowId: string;
  action: string;
  sourcePath: string;
  targetPath: string;
  sha256: string | null;
  /** False when apply would not move the row (blocked or in conflict). */
  eligible: boolean;
}

/** The 32-byte digest of one row's part of the plan, as hex. */
export function planRowDigest(row: PlanRow): string {
  // The one-shot hash: no Hash object per row (analyze digests every row it builds).
  return hash(
    "sha256",
    [row.rowId, row.action, row.sourcePath, row.targetPath, row.sha256 ?? "", row.eligible ? "1" : "0"].join(
      "\0",
    ),
    "hex",
  );
}

/** The accumulator of an empty plan. */
export const EMPTY_PLAN_ACCUMULATOR = "0".repeat(64);

/**
 * XORs a row digest into (or out of) the accumulator. The accumulator is an order-independent digest of the
 * set of row digests, so one edited row updates it without reading the rest of the manifest.
 */
export function xorDigest(accumulator: string, digest: string): string {
  const a = Buffer.from(accumulator, "hex");
  const b = Buffer.from(digest, "hex");
  for (let i = 0; i < a.length; i++) a[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return a.toString("hex");
}

/** The public plan hash of a manifest, from its accumulator. */
export function planHashOf(accumulator: string): string {
  return createHash("sha256").update(`fileorg-plan-v1:${accumulator}`).digest("hex");
}

/** An accumulator XORed in place, digest after digest (one 32-byte buffer instead of two per row). */
export function createPlanAccumulator(): { add(digest: string): void; value(): string } {
  const acc = Buffer.alloc(32);
  return {
    add(digest) {
      const d = Buffer.from(digest, "hex");
      for (let i = 0; i < acc.length; i++) acc[i] = (acc[i] ?? 0) ^ (d[i] ?? 0);
    },
    value: () => acc.toString("hex"),
  };
}
