// The webhooks lane: endpoints, the outbox written with each run change, signed delivery and feeds.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

export type { FeedEntry, WebhookFeed } from "./feeds.js";
export {
  createTaskFinishedHook,
  enqueueWebhookEvent,
  type FinishedTaskFacts,
  type OutboxEvent,
  queueRunWebhook,
} from "./outbox.js";
export type { WebhooksEngineOptions } from "./resources.js";
export { WebhookNotFoundError, WebhookUrlDeniedError } from "./webhook-errors.js";
export { createWebhooksEngine, type WebhooksEngine } from "./webhooks-engine.js";
