import { BACKGROUND } from "@vetted/store";
import { and, asc, eq, isNull, lt, lte, or } from "drizzle-orm";
import {
  type DeliveryAttempt,
  type DeliveryDecision,
  decideAfterAttempt,
  payloadBody,
  signatureHeader,
  WEBHOOK_HEADERS,
} from "../../domain/webhooks.js";
import { pinnedFetch } from "../../kernel/outbound.js";
import { webhookDeliveries, webhookEvents, webhooks } from "../../store/schema.js";
import { type HookResources, secretContext } from "./resources.js";
import { judgeWebhookUrl } from "./url-guard.js";
import type { DeliveryRow } from "./views.js";

/** The attempts a delivery's log keeps (the newest). */
const ATTEMPT_LOG_MAX = 20;

/** A delivery this process claimed, with the lease token its writes are guarded by. */
export interface ClaimedDelivery {
  row: DeliveryRow;
  token: string;
}

/** How one attempt went; `final` ends the delivery as failed at once (no retry could succeed). */
interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  final?: boolean;
}

/**
 * Claims delivery `id` for this dispatcher under a fresh lease token, if it is still pending, due and not
 * leased to a live claim (the guard: a compare-and-set on the lease, so two processes sharing the database
 * never send one delivery at once). Returns the claimed row, or undefined when another claim won.
 */
export async function claimDelivery(
  r: HookResources,
  id: string,
  token: string,
  at: number,
): Promise<DeliveryRow | undefined> {
  const [row] = await r.write(
    (tx) =>
      tx
        .update(webhookDeliveries)
        .set({ leaseOwner: token, leaseExpiresAt: at + r.leaseMs })
        .where(
          and(
            eq(webhookDeliveries.id, id),
            eq(webhookDeliveries.status, "pending"),
            lte(webhookDeliveries.nextAttemptAt, at),
            or(isNull(webhookDeliveries.leaseOwner), lt(webhookDeliveries.leaseExpiresAt, at)),
          ),
        )
        .returning(),
    BACKGROUND,
  );
  return row;
}

/** Ids of deliveries due now and not leased to a live claim, oldest due first (a read; no lock taken). */
export async function findDue(r: HookResources, at: number, limit: number): Promise<string[]> {
  const rows = await r.db
    .select({ id: webhookDeliveries.id })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.nextAttemptAt, at),
        or(isNull(webhookDeliveries.leaseOwner), lt(webhookDeliveries.leaseExpiresAt, at)),
      ),
    )
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(limit);
  return rows.map((row) => row.id);
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return err.name === "TimeoutError" ? "the receiver did not answer in time" : `${err.message}${cause}`;
  }
  return String(err);
}

/**
 * POSTs the signed body to `url`, judged again right before the attempt (a protected provider or a URL
 * with credentials is never posted to, and fails the delivery for good), pinned to the address it checked.
 */
async function post(
  r: HookResources,
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<AttemptResult> {
  const decision = await judgeWebhookUrl(r, url);
  if (!decision.ok) return { statusCode: null, error: `refused: ${decision.reason}`, final: decision.final };
  const pinned = pinnedFetch(r.fetch, decision.address, decision.family);
  try {
    const res = await pinned.fetch(url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(r.timeoutMs),
    });
    await res.body?.cancel();
    const ok = res.status >= 200 && res.status < 300;
    return { statusCode: res.status, error: ok ? null : `the receiver answered ${res.status}` };
  } catch (err) {
    return { statusCode: null, error: describe(err) };
  } finally {
    await pinned.close();
  }
}

/** Makes one attempt of a claimed delivery: loads its webhook and event, signs the body, sends it. */
async function attempt(r: HookResources, row: DeliveryRow): Promise<AttemptResult> {
  const [hook] = await r.db.select().from(webhooks).where(eq(webhooks.id, row.webhookId)).limit(1);
  const [event] = await r.db.select().from(webhookEvents).where(eq(webhookEvents.id, row.eventId)).limit(1);
  if (hook === undefined || event === undefined)
    return { statusCode: null, error: "the webhook or its event is gone" };
  const secret = r.box.open(hook.secret, secretContext(hook.id));
  if (secret === undefined) {
    return {
      statusCode: null,
      error: "the webhook secret does not open with this server's VETTED_SECRETS_KEY",
    };
  }
  const body = payloadBody(event);
  const ts = Math.floor(r.now() / 1000);
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": "Vetted-Webhooks/1",
    [WEBHOOK_HEADERS.event]: event.type,
    [WEBHOOK_HEADERS.delivery]: row.id,
    [WEBHOOK_HEADERS.signature]: await signatureHeader(secret, ts, body),
  };
  return post(r, hook.url, headers, body);
}

/**
 * Records an attempt's outcome, only while the delivery is still leased to this claim: delivered, retried
 * after a backoff with jitter, or failed for good once the retry window has closed. Releases the lease.
 */
async function recordOutcome(
  r: HookResources,
  row: DeliveryRow,
  token: string,
  result: AttemptResult,
  startedAt: number,
): Promise<void> {
  const at = r.now();
  const attempts = row.attempts + 1;
  const ok = result.error === null;
  const decision: DeliveryDecision =
    !ok && result.final === true
      ? { status: "failed" }
      : decideAfterAttempt({
          ok,
          attempts,
          createdAt: row.createdAt,
          now: at,
          policy: r.retry,
          random: r.random(),
        });
  const entry: DeliveryAttempt = {
    at: new Date(startedAt).toISOString(),
    status_code: result.statusCode,
    error: result.error,
    duration_ms: Math.max(0, at - startedAt),
  };
  const written = await r.write(
    (tx) =>
      tx
        .update(webhookDeliveries)
        .set({
          status: decision.status,
          attempts,
          nextAttemptAt: decision.status === "pending" ? decision.nextAttemptAt : null,
          lastStatusCode: result.statusCode,
          lastError: result.error,
          attemptLog: [...row.attemptLog, entry].slice(-ATTEMPT_LOG_MAX),
          deliveredAt: decision.status === "delivered" ? at : null,
          leaseOwner: null,
          leaseExpiresAt: null,
        })
        .where(and(eq(webhookDeliveries.id, row.id), eq(webhookDeliveries.leaseOwner, token)))
        .returning({ id: webhookDeliveries.id }),
    BACKGROUND,
  );
  if (written.length > 0) r.onAttempt(decision.status === "pending" ? "retry" : decision.status);
}

/** Sends one claimed delivery and records the outcome. */
export async function sendClaimed(r: HookResources, row: DeliveryRow, token: string): Promise<void> {
  const startedAt = r.now();
  const result = await attempt(r, row);
  await recordOutcome(r, row, token, result, startedAt);
}
