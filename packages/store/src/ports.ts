import { randomBytes } from "node:crypto";

/** The engines' source of time (epoch milliseconds); tests pass a controllable one. */
export interface Clock {
  now(): number;
}

/** Makes a fresh id with the given prefix (`run`, `job`, `flow`, …). */
export type IdGenerator = (prefix: string) => string;

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** Ids like `run_2w9Xk3…`: the prefix, an underscore and 80 random bits in base64url. */
export const randomIds: IdGenerator = (prefix) => `${prefix}_${randomBytes(10).toString("base64url")}`;
