// The webhooks lane: endpoints, the outbox written with each run change, signed delivery and feeds.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

export {
  DEFAULT_RETRY_POLICY,
  DELIVERY_EVENT_TYPES,
  DELIVERY_STATUSES,
  type DeliveryAttempt,
  type DeliveryEventType,
  type DeliveryStatus,
  decideAfterAttempt as decideWebhookAfterAttempt,
  parseSignatureHeader,
  type RetryPolicy,
  retryDelayMs as webhookRetryDelayMs,
  signatureHeader,
  verifySignature,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WEBHOOK_TEST_EVENT,
  Webhook,
  WebhookDelivery,
  type WebhookEventType,
  WebhookInput,
  type WebhookPayload,
} from "../../domain/webhooks.js";
export type { FeedEntry, WebhookFeed } from "./feeds.js";
export {
  createTaskFinishedHook,
  enqueueWebhookEvent,
  type FinishedTaskFacts,
  type OutboxEvent,
} from "./outbox.js";
export type { WebhooksEngineOptions } from "./resources.js";
export { WebhookNotFoundError, WebhookUrlDeniedError } from "./webhook-errors.js";
export { createWebhooksEngine, type WebhooksEngine } from "./webhooks-engine.js";
