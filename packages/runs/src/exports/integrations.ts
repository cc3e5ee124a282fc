// Integrations: inbound SMS and one-time codes, embeddings, signed webhooks. Re-exported by `src/index.ts`.

export {
  createInboundMessagesOtpSource,
  extractOtpCode,
  type InboundMessage,
  type InboundMessagesOtpSource,
  type OtpRequest,
  type OtpSource,
} from "../core/otp-source.js";
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
export {
  createEmbeddings,
  createLocalEmbedder,
  createOpenAiCompatibleEmbedder,
  createTokenizer,
  dot,
  type Embedder,
  type Embeddings,
  EmbeddingsBusyError,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalEmbedderOptions,
  normalize,
  type OpenAiCompatibleOptions,
  UnknownModelError,
  UpstreamFailedError,
  UpstreamTimeoutError,
} from "../lanes/embeddings/index.js";
export type { CallbackRejection } from "../lanes/inbound-sms/index.js";
export type { FeedEntry, WebhookFeed, WebhooksEngineOptions } from "../lanes/webhooks/index.js";
export {
  createTaskFinishedHook,
  createWebhooksEngine,
  enqueueWebhookEvent,
  type FinishedTaskFacts,
  type OutboxEvent,
  WebhookNotFoundError,
  type WebhooksEngine,
  WebhookUrlDeniedError,
} from "../lanes/webhooks/index.js";
