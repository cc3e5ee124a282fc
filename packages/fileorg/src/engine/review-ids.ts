import { randomBytes } from "node:crypto";

/** Makes prefixed ids (`rule_…`, `watch_…`); injectable so tests can make them predictable. */
export type IdGenerator = (prefix: string) => string;

/** Random, URL-safe, 16-character ids under a prefix. */
export const randomIds: IdGenerator = (prefix) => `${prefix}_${randomBytes(12).toString("base64url")}`;

/** The current time in epoch milliseconds; injectable for tests. */
export type Clock = () => number;
