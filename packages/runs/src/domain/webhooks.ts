import { z } from "zod";
import { matchProtectedDomain } from "./providers.js";

/**
 * Signed webhooks, the pure half: event types, the subscription and delivery schemas, the signature
 * (`X-Vetted-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`) and the retry
 * schedule (exponential backoff with jitter, given up once the retry window has passed).
 */

/** The events a webhook may subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  "run.waiting",
  "run.finished",
  "run.failed",
  "task.finished",
  "job.finished",
] as const;

/** A webhook event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The event of a test delivery (`POST /api/webhooks/{id}/test`): sent to one webhook, never subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/** The event types a delivery may carry: the subscribable ones and the test event. */
export const DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;

/** The event type of a delivery. */
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];

/**
 * Delivery statuses: `pending` (due at `next_attempt_at`, or being sent under a lease), `delivered` (a 2xx
 * answer), `failed` (every attempt failed until the retry window closed).
 */
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

/** A delivery status. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The header names a delivery carries. */
export const WEBHOOK_HEADERS = {
  signature: "X-Vetted-Signature",
  event: "X-Vetted-Event",
  delivery: "X-Vetted-Delivery",
} as const;

/** `POST /api/webhooks`: where to send, which events, and the shared secret the signature uses. */
export const WebhookInput = z
  .object({
    url: z
      .string()
      .max(2048)
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
        message: "must be an absolute http(s) URL",
      })
      .meta({ description: "Where deliveries are POSTed; checked against the outbound policy" }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES))
      .min(1)
      .max(WEBHOOK_EVENT_TYPES.length)
      .meta({ description: "The event types this webhook receives" }),
    secret: z
      .string()
      .min(16)
      .max(256)
      .meta({ description: "The HMAC-SHA256 key of X-Vetted-Signature; stored encrypted, never returned" }),
    description: z.string().max(500).optional(),
  })
  .strict()
  .meta({ id: "WebhookInput" });

/**
 * `url` as it may be shown (in errors, lists, logs): any `user:password@` part replaced by `***@`. A URL
 * that does not parse is returned as it is.
 */
export function shownWebhookUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  if (u.username === "" && u.password === "") return url;
  u.username = "***";
  u.password = "";
  return u.toString();
}

/**
 * Why a webhook URL may never be delivered to, whatever the network says, or undefined: it carries
 * credentials (`https://user:pass@host/`, which fetch refuses to send), or its host is a protected payment
 * provider (or a subdomain of one) by name or IP literal. Pure: the addresses a name resolves to are
 * judged separately.
 */
export function webhookUrlProblem(url: string, protectedDomains: readonly string[]): string | undefined {
  if (!URL.canParse(url)) return "it is not an absolute URL";
  const u = new URL(url);
  if (u.username !== "" || u.password !== "") {
    return "it carries credentials (user:password@); authenticate the receiver with the signature instead";
  }
  const provider = matchProtectedDomain(url, protectedDomains);
  if (provider !== undefined) {
    return `${u.hostname} is the protected payment provider ${provider}, which a webhook never posts to`;
  }
  return undefined;
}

/** A webhook subscription as the API returns it (never its secret). */
export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
    description: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: "Webhook" });

/** A webhook subscription. */
export type Webhook = z.infer<typeof Webhook>;

/** One attempt of a delivery: when, the answer's status (null: no answer) and the error. */
export const DeliveryAttempt = z.object({
  at: z.string(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
});

/** One attempt of a delivery. */
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

/** A delivery of one event to one webhook. */
export const WebhookDelivery = z
  .object({
    id: z.string().meta({ description: "Sent as X-Vetted-Delivery" }),
    webhook_id: z.string(),
    event_id: z.string(),
    event_type: z.enum(DELIVERY_EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    next_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    attempt_log: z.array(DeliveryAttempt),
    redelivery_of: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .meta({ id: "WebhookDelivery" });

/** A delivery of one event to one webhook. */
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

/** The body of every delivery: the event's id, type, time and data. */
export interface WebhookPayload {
  id: string;
  type: DeliveryEventType;
  created_at: string;
  data: Record<string, unknown>;
}

/** The JSON body of a delivery of `event`. */
export function payloadBody(event: {
  id: string;
  type: DeliveryEventType;
  createdAt: number;
  data: Record<string, unknown>;
}): string {
  const payload: WebhookPayload = {
    id: event.id,
    type: event.type,
    created_at: new Date(event.createdAt).toISOString(),
    data: event.data,
  };
  return JSON.stringify(payload);
}

/** Whether a webhook subscribed to `events` receives `type`. */
export function isSubscribed(events: readonly WebhookEventType[], type: WebhookEventType): boolean {
  return events.includes(type);
}

function toHex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Hex HMAC-SHA256 of `ts + "." + body` under `secret` (Web Crypto: no I/O, same answer every time). */
export async function signatureV1(secret: string, ts: number, body: string): Promise<string> {
  const enc = new TextEncoder();
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return toHex(await globalThis.crypto.subtle.sign("HMAC", key, enc.encode(`${ts}.${body}`)));
}

/** The `X-Vetted-Signature` value of `body` sent at `ts` (unix seconds): `t=<ts>,v1=<hex>`. */
export async function signatureHeader(secret: string, ts: number, body: string): Promise<string> {
  return `t=${ts},v1=${await signatureV1(secret, ts, body)}`;
}

/** The parts of an `X-Vetted-Signature` value, or undefined when it is not one. */
export function parseSignatureHeader(value: string): { ts: number; v1: string[] } | undefined {
  let ts: number | undefined;
  const v1: string[] = [];
  for (const part of value.split(",")) {
    const [k, v] = part.trim().split("=", 2);
    if (k === "t" && v !== undefined && /^\d{1,12}$/.test(v)) ts = Number(v);
    else if (k === "v1" && v !== undefined && /^[0-9a-f]{64}$/.test(v)) v1.push(v);
  }
  return ts === undefined || v1.length === 0 ? undefined : { ts, v1 };
}

function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a delivery as a receiver would: the header parses, its timestamp is within `toleranceS` of
 * `nowS`, and one `v1` matches the HMAC of the body (compared in constant time).
 */
export async function verifySignature(
  header: string,
  secret: string,
  body: string,
  opts: { nowS: number; toleranceS?: number },
): Promise<boolean> {
  const parsed = parseSignatureHeader(header);
  if (parsed === undefined) return false;
  if (Math.abs(opts.nowS - parsed.ts) > (opts.toleranceS ?? 300)) return false;
  const expected = await signatureV1(secret, parsed.ts, body);
  return parsed.v1.some((v) => sameText(v, expected));
}

/** How deliveries are retried. */
export interface RetryPolicy {
  /** The first retry's nominal delay (doubled each attempt). */
  baseMs: number;
  /** The largest delay between attempts. */
  maxMs: number;
  /** How long after the event a delivery is still retried (24 h by default). */
  windowMs: number;
}

/** The default retry policy: 10 s doubling up to 1 h, for 24 h. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { baseMs: 10_000, maxMs: 3_600_000, windowMs: 86_400_000 };

/**
 * The delay before attempt `attempts + 1` after `attempts` failed ones: the nominal `base × 2^(attempts-1)`
 * (capped at `maxMs`) with "equal jitter", half fixed and half random, so delays never shrink from one
 * attempt to the next while processes retrying together still spread out. `random` is in [0, 1).
 */
export function retryDelayMs(attempts: number, policy: RetryPolicy, random: number): number {
  const exponent = Math.max(0, attempts - 1);
  const nominal = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(exponent, 40));
  return Math.round(nominal / 2 + (nominal / 2) * Math.min(Math.max(random, 0), 1));
}

/** What happens to a delivery after an attempt. */
export type DeliveryDecision =
  | { status: "delivered" }
  | { status: "pending"; nextAttemptAt: number }
  | { status: "failed" };

/**
 * Decides a delivery's next state after its `attempts`-th attempt: delivered on success; else retried after
 * {@link retryDelayMs} unless that would fall past `createdAt + windowMs`, when it has failed for good.
 */
export function decideAfterAttempt(input: {
  ok: boolean;
  attempts: number;
  createdAt: number;
  now: number;
  policy: RetryPolicy;
  random: number;
}): DeliveryDecision {
  if (input.ok) return { status: "delivered" };
  const next = input.now + retryDelayMs(input.attempts, input.policy, input.random);
  if (next > input.createdAt + input.policy.windowMs) return { status: "failed" };
  return { status: "pending", nextAttemptAt: next };
}
