import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import {
  DELIVERY_EVENT_TYPES,
  DELIVERY_STATUSES,
  type DeliveryAttempt,
  type DeliveryEventType,
  type DeliveryStatus,
  type WebhookEventType,
} from "../domain/webhooks.js";

/*
 * The tables of signed webhooks: subscriptions, the outbox of events (written in the transaction of the
 * transition they report), one delivery per event and subscribed webhook, and the read positions of the
 * feeds relayed from other engines' event logs. Re-exported by `schema.ts`.
 */

/** Webhook subscriptions; the secret is sealed (`v1:` AES-256-GCM, bound to the webhook's id). */
export const webhooks = sqliteTable(
  "runs_webhooks",
  {
    id: text("id").primaryKey(),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<WebhookEventType[]>().notNull(),
    secret: text("secret").notNull(),
    description: text("description"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("runs_webhooks_created_idx").on(t.createdAt, t.id)],
);

/** The outbox: one row per event some webhook subscribed to, written with the transition it reports. */
export const webhookEvents = sqliteTable("runs_webhook_events", {
  id: text("id").primaryKey(),
  type: text("type", { enum: DELIVERY_EVENT_TYPES }).$type<DeliveryEventType>().notNull(),
  /** The run, job or task the event is about. */
  subject: text("subject").notNull(),
  data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  createdAt: integer("created_at").notNull(),
});

/** Deliveries: claimed by a dispatcher under a lease, attempted, retried with backoff until the window closes. */
export const webhookDeliveries = sqliteTable(
  "runs_webhook_deliveries",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id").notNull(),
    eventId: text("event_id").notNull(),
    eventType: text("event_type", { enum: DELIVERY_EVENT_TYPES }).$type<DeliveryEventType>().notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).$type<DeliveryStatus>().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    /** The dispatcher claim sending it now: `<worker>:<n>`; null when none. */
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: integer("lease_expires_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    attemptLog: text("attempt_log", { mode: "json" }).$type<DeliveryAttempt[]>().notNull(),
    /** The delivery this one re-sends (`POST …/redeliver`). */
    redeliveryOf: text("redelivery_of"),
    createdAt: integer("created_at").notNull(),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [
    index("runs_webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    index("runs_webhook_deliveries_hook_idx").on(t.webhookId, t.createdAt, t.id),
  ],
);

/** How far the relay has read each external feed (e.g. fileorg's job events), by feed name. */
export const webhookFeeds = sqliteTable("runs_webhook_feeds", {
  name: text("name").primaryKey(),
  position: integer("position").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
