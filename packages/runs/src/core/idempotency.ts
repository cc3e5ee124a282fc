import type { Tx } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { Run } from "../domain/run.js";
import { IdempotencyKeyReusedError } from "../kernel/errors.js";
import { idempotency } from "../store/schema.js";
import type { RunVault } from "./run-vault.js";

/** Per-request options of the verbs that honour `Idempotency-Key`. */
export interface IdempotencyOptions {
  idempotencyKey?: string | undefined;
}

/** JSON with object keys sorted, so the same body hashes the same whatever its key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A keyed digest of a request body: a stored hash must not let anyone try codes or secrets against it. */
export function hashRequest(vault: RunVault, value: unknown): string {
  return vault.digest(canonicalJson(value));
}

/** The stored answer of an earlier request with the same key. @throws IDEMPOTENCY_KEY_REUSED on another body */
export async function replay(
  tx: Tx | LibSQLDatabase,
  scope: string,
  key: string | undefined,
  hash: string,
): Promise<Run | undefined> {
  if (key === undefined) return undefined;
  const [hit] = await tx
    .select()
    .from(idempotency)
    .where(and(eq(idempotency.scope, scope), eq(idempotency.key, key)))
    .limit(1);
  if (hit === undefined) return undefined;
  if (hit.requestHash !== hash) throw new IdempotencyKeyReusedError();
  return hit.response as Run;
}

/** Stores a request's answer under its key, in the request's transaction. */
export async function remember(
  tx: Tx,
  scope: string,
  key: string | undefined,
  hash: string,
  run: Run,
  at: number,
): Promise<void> {
  if (key === undefined) return;
  await tx
    .insert(idempotency)
    .values({ scope, key, requestHash: hash, runId: run.id, response: run, createdAt: at });
}
