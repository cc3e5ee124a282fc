import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

/** Prefixed, time-ordered ids: `job_…`, `row_…`. */
export function createId(prefix: string): string {
  const now = Date.now();
  counter = now === lastMs ? counter + 1 : 0;
  lastMs = now;
  return `${prefix}_${now.toString(36).padStart(9, "0")}${counter.toString(36).padStart(3, "0")}${randomBytes(6).toString("hex")}`;
}
