import { shownWebhookUrl, type Webhook, type WebhookDelivery } from "../../domain/webhooks.js";
import type { webhookDeliveries, webhooks } from "../../store/schema.js";

/** A stored webhook row. */
export type WebhookRow = typeof webhooks.$inferSelect;

/** A stored delivery row. */
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A webhook as the API returns it: never its secret (nor credentials a URL stored before they were refused). */
export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: shownWebhookUrl(row.url),
    events: row.events,
    description: row.description,
    created_at: iso(row.createdAt),
  };
}

/** A delivery as the API returns it. */
export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" && row.nextAttemptAt !== null ? iso(row.nextAttemptAt) : null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    attempt_log: row.attemptLog,
    redelivery_of: row.redeliveryOf,
    created_at: iso(row.createdAt),
    delivered_at: row.deliveredAt === null ? null : iso(row.deliveredAt),
  };
}
