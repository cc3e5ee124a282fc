// Integrations: inbound SMS and one-time codes, embeddings, signed webhooks. Re-exported by `src/index.ts`.

export {
  EMBEDDINGS_MAX_CHARS,
  EMBEDDINGS_MAX_TEXTS,
  EmbeddingsBatchRequest,
  EmbeddingsBatchResponse,
  hasControlCharacters,
} from "../domain/embeddings.js";
export {
  CALLBACK_OUTCOMES,
  codeForPolicy,
  DEFAULT_SMS_CODE_PATTERN,
  InboundCallback,
  normalizeNumber,
  type SmsDelivery,
  type SmsReceipt,
} from "../domain/inbound-sms.js";
export {
  DEFAULT_RETRY_POLICY,
  DELIVERY_STATUSES,
  type DeliveryAttempt,
  type DeliveryStatus,
  decideAfterAttempt as decideWebhookAfterAttempt,
  parseSignatureHeader,
  type RetryPolicy,
  retryDelayMs as webhookRetryDelayMs,
  signatureHeader,
  verifySignature,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  Webhook,
  WebhookDelivery,
  type WebhookEventType,
  WebhookInput,
  type WebhookPayload,
} from "../domain/webhooks.js";
export { dot, type Embedder, normalize } from "../embeddings/embedder.js";
export {
  EmbeddingsBusyError,
  UnknownModelError,
  UpstreamFailedError,
  UpstreamTimeoutError,
} from "../embeddings/errors.js";
export {
  createLocalEmbedder,
  createTokenizer,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalEmbedderOptions,
} from "../embeddings/local.js";
export {
  createOpenAiCompatibleEmbedder,
  type OpenAiCompatibleOptions,
} from "../embeddings/openai-compatible.js";
export { createEmbeddings, type Embeddings } from "../embeddings/service.js";
export type { CallbackRejection } from "../engine/inbound-sms.js";
export {
  createInboundMessagesOtpSource,
  extractOtpCode,
  type InboundMessage,
  type InboundMessagesOtpSource,
  type OtpRequest,
  type OtpSource,
} from "../engine/otp-source.js";
export type { FeedEntry, WebhookFeed } from "../engine/webhooks/feeds.js";
export {
  createTaskFinishedHook,
  enqueueWebhookEvent,
  type FinishedTaskFacts,
  type OutboxEvent,
} from "../engine/webhooks/outbox.js";
export type { WebhooksEngineOptions } from "../engine/webhooks/resources.js";
export { createWebhooksEngine, type WebhooksEngine } from "../engine/webhooks/webhooks-engine.js";
export { WebhookNotFoundError, WebhookUrlDeniedError } from "../webhook-errors.js";
