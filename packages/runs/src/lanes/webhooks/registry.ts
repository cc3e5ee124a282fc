import { decodeCursor, encodeCursor, type KeysetPage, toKeysetPage } from "@vetted/store";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { type ListQuery, pageLimit } from "../../core/lists.js";
import { parseInput } from "../../core/persist.js";
import {
  shownWebhookUrl,
  WEBHOOK_TEST_EVENT,
  type Webhook,
  type WebhookDelivery,
  WebhookInput,
} from "../../domain/webhooks.js";
import { webhookDeliveries, webhookEvents, webhooks } from "../../store/schema.js";
import { type HookResources, secretContext } from "./resources.js";
import { judgeWebhookUrl } from "./url-guard.js";
import { type DeliveryRow, toDelivery, toWebhook, type WebhookRow } from "./views.js";
import { WebhookNotFoundError, WebhookUrlDeniedError } from "./webhook-errors.js";

/** Refuses a URL a delivery could never (or may not) reach. @throws WebhookUrlDeniedError */
async function checkUrl(r: HookResources, url: string): Promise<void> {
  const verdict = await judgeWebhookUrl(r, url);
  if (!verdict.ok) throw new WebhookUrlDeniedError(shownWebhookUrl(url), verdict.reason, verdict.final);
}

/**
 * Subscribes a URL to events. The URL must carry no credentials, name no protected payment provider and
 * pass the outbound policy (no link-local or cloud metadata address, not this server's own port on a local
 * address, the deny and allow lists) on the addresses it resolves to, none of which may be a protected
 * provider's; the secret is sealed and never returned.
 * @throws InvalidInputError REQUEST_INVALID, WebhookUrlDeniedError
 */
export async function createWebhook(r: HookResources, input: unknown): Promise<Webhook> {
  const body = parseInput(WebhookInput, input, "REQUEST_INVALID", "The webhook");
  await checkUrl(r, body.url);
  const id = r.newId("whk");
  const row: WebhookRow = {
    id,
    url: body.url,
    events: [...new Set(body.events)],
    secret: r.box.seal(body.secret, secretContext(id)),
    description: body.description ?? null,
    createdAt: r.now(),
  };
  await r.write((tx) => tx.insert(webhooks).values(row));
  return toWebhook(row);
}

async function loadWebhook(r: HookResources, id: string): Promise<WebhookRow> {
  const [row] = await r.db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1);
  if (row === undefined) throw new WebhookNotFoundError("WEBHOOK_NOT_FOUND", id);
  return row;
}

/** One webhook. @throws WebhookNotFoundError */
export async function getWebhook(r: HookResources, id: string): Promise<Webhook> {
  return toWebhook(await loadWebhook(r, id));
}

function newestFirst(
  createdAt: typeof webhooks.createdAt | typeof webhookDeliveries.createdAt,
  idCol: typeof webhooks.id | typeof webhookDeliveries.id,
  list: string,
  cursor: string | undefined,
): SQL | undefined {
  if (cursor === undefined) return undefined;
  const [at, id] = decodeCursor(cursor, list, ["integer", "string"]);
  return or(lt(createdAt, Number(at)), and(eq(createdAt, Number(at)), lt(idCol, String(id))));
}

/** Webhooks, newest first, one keyset page. @throws CURSOR_INVALID */
export async function listWebhooks(r: HookResources, query: ListQuery = {}): Promise<KeysetPage<Webhook>> {
  const limit = pageLimit(query.limit);
  const rows = await r.db
    .select()
    .from(webhooks)
    .where(newestFirst(webhooks.createdAt, webhooks.id, "webhooks", query.cursor))
    .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toWebhook, (last) => encodeCursor("webhooks", [last.createdAt, last.id]));
}

/** Removes a webhook and its deliveries (pending ones are never sent). @throws WebhookNotFoundError */
export async function deleteWebhook(r: HookResources, id: string): Promise<void> {
  const removed = await r.write(async (tx) => {
    const gone = await tx.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id });
    if (gone.length > 0) await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id));
    return gone.length;
  });
  if (removed === 0) throw new WebhookNotFoundError("WEBHOOK_NOT_FOUND", id);
}

/** A webhook's deliveries, newest first, one keyset page. @throws WebhookNotFoundError, CURSOR_INVALID */
export async function listDeliveries(
  r: HookResources,
  webhookId: string,
  query: ListQuery = {},
): Promise<KeysetPage<WebhookDelivery>> {
  await loadWebhook(r, webhookId);
  const limit = pageLimit(query.limit);
  const list = `webhook_deliveries:${webhookId}`;
  const rows = await r.db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.webhookId, webhookId),
        newestFirst(webhookDeliveries.createdAt, webhookDeliveries.id, list, query.cursor),
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toDelivery, (last) => encodeCursor(list, [last.createdAt, last.id]));
}

/** One delivery of a webhook. @throws WebhookNotFoundError */
export async function getDelivery(
  r: HookResources,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const [row] = await r.db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
    .limit(1);
  if (row === undefined) throw new WebhookNotFoundError("WEBHOOK_DELIVERY_NOT_FOUND", deliveryId, webhookId);
  return toDelivery(row);
}

/**
 * Sends a delivery's event again: a new delivery (its own id, `redelivery_of` the original), due now,
 * signed afresh when sent. Works for delivered, failed and pending deliveries alike.
 * @throws WebhookNotFoundError
 */
export async function redeliver(
  r: HookResources,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  return r.write(async (tx) => {
    const [original] = await tx
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
      .limit(1);
    if (original === undefined) {
      const [hook] = await tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, webhookId));
      if (hook === undefined) throw new WebhookNotFoundError("WEBHOOK_NOT_FOUND", webhookId);
      throw new WebhookNotFoundError("WEBHOOK_DELIVERY_NOT_FOUND", deliveryId, webhookId);
    }
    const [event] = await tx
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(eq(webhookEvents.id, original.eventId));
    if (event === undefined)
      throw new WebhookNotFoundError("WEBHOOK_DELIVERY_NOT_FOUND", deliveryId, webhookId);
    const row: DeliveryRow = {
      ...pendingDelivery(r, webhookId, original.eventId, original.eventType, r.now()),
      redeliveryOf: original.id,
    };
    await tx.insert(webhookDeliveries).values(row);
    return toDelivery(row);
  });
}

/** A pending delivery row of `eventId` to `webhookId`, due at `at`. */
function pendingDelivery(
  r: HookResources,
  webhookId: string,
  eventId: string,
  eventType: DeliveryRow["eventType"],
  at: number,
): DeliveryRow {
  return {
    id: r.newId("whd"),
    webhookId,
    eventId,
    eventType,
    status: "pending",
    attempts: 0,
    nextAttemptAt: at,
    leaseOwner: null,
    leaseExpiresAt: null,
    lastStatusCode: null,
    lastError: null,
    attemptLog: [],
    redeliveryOf: null,
    createdAt: at,
    deliveredAt: null,
  };
}

/**
 * Queues a `webhook.test` event for this one webhook (whatever it subscribed to): a delivery due now,
 * signed and retried like any other, so the receiver and its signature check can be tried out.
 * @throws WebhookNotFoundError
 */
export async function sendTestDelivery(r: HookResources, webhookId: string): Promise<WebhookDelivery> {
  return r.write(async (tx) => {
    const [hook] = await tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, webhookId));
    if (hook === undefined) throw new WebhookNotFoundError("WEBHOOK_NOT_FOUND", webhookId);
    const at = r.now();
    const eventId = r.newId("whe");
    const data = {
      webhook_id: webhookId,
      message: "A test delivery from Vetted",
      at: new Date(at).toISOString(),
    };
    await tx
      .insert(webhookEvents)
      .values({ id: eventId, type: WEBHOOK_TEST_EVENT, subject: webhookId, data, createdAt: at });
    const row = pendingDelivery(r, webhookId, eventId, WEBHOOK_TEST_EVENT, at);
    await tx.insert(webhookDeliveries).values(row);
    return toDelivery(row);
  });
}
