import { randomFillSync } from "node:crypto";

let lastMs = 0;
let counter = 0;
// Random bytes are drawn in blocks: one call into the CSPRNG per 680 ids rather than one per id.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString("hex", poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** Prefixed, time-ordered ids: `job_…`, `row_…`. */
export function createId(prefix: string): string {
  const now = Date.now();
  counter = now === lastMs ? counter + 1 : 0;
  lastMs = now;
  return `${prefix}_${now.toString(36).padStart(9, "0")}${counter.toString(36).padStart(3, "0")}${randomHex(6)}`;
}
