/**
 * @module @vetted/runs
 *
 * The run engine of a UI-automation platform: flows as data (a registry of step types), templates with
 * validated params and policies, and durable runs that pause at one-time-code, approval and input gates,
 * resume with a compare-and-set, time out on schedule and survive restarts.
 */

/** The engines' ports and pages, from `@vetted/store`. */
export type { Clock, IdGenerator, KeysetPage, KeysetPage as Page } from "@vetted/store";
export {
  EMBEDDINGS_MAX_CHARS,
  EMBEDDINGS_MAX_TEXTS,
  EmbeddingsBatchRequest,
  EmbeddingsBatchResponse,
  hasControlCharacters,
} from "./domain/embeddings.js";
export { Flow, FlowInput, FlowPatch } from "./domain/flow.js";
export {
  type CanonicalHost,
  canonicalAddress,
  canonicalHost,
  type HostRule,
  parseHostRule,
  parseHostRules,
} from "./domain/host.js";
export {
  CALLBACK_OUTCOMES,
  codeForPolicy,
  DEFAULT_SMS_CODE_PATTERN,
  InboundCallback,
  normalizeNumber,
  type SmsDelivery,
  type SmsReceipt,
} from "./domain/inbound-sms.js";
export { type Interpolated, interpolate, references, type Scope } from "./domain/interpolate.js";
export {
  DEFAULT_PROTECTED_PROVIDER_DOMAINS,
  matchProtectedDomain,
  matchProtectedHost,
  parseProtectedDomains,
} from "./domain/providers.js";
export {
  CreateRunInput,
  EVENT_TYPES,
  type EventType,
  ResumeRequest,
  Run,
  RunEvent,
  RunOtpSubmitRequest,
  WaitContext,
} from "./domain/run.js";
export {
  canTransition,
  END_REASONS,
  type EndReason,
  isTerminal,
  isWaiting,
  REASON_CODES,
  RESUME_KINDS,
  type ReasonCode,
  type ResumeKind,
  RUN_STATUSES,
  type RunStatus,
  TERMINAL_STATUSES,
  WAITING_STATUSES,
} from "./domain/status.js";
export {
  ApprovalGateStep,
  AssertStep,
  type GateRequest,
  HttpStep,
  InputGateStep,
  type InputSchema,
  OtpGateStep,
  SetStep,
  Step,
  type StepOutcome,
  WaitStep,
} from "./domain/steps.js";
export {
  DEFAULT_POLICIES,
  PARAM_TYPES,
  type ParamIssue,
  ParamSpec,
  type ParamsResult,
  Policies,
  Template,
  TemplateInput,
  TemplatePatch,
  validateParams,
} from "./domain/template.js";
export {
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "./domain/transitions.js";
export { dot, type Embedder, normalize } from "./embeddings/embedder.js";
export { UnknownModelError, UpstreamFailedError, UpstreamTimeoutError } from "./embeddings/errors.js";
export {
  createLocalEmbedder,
  createTokenizer,
  LOCAL_DIMENSION,
  LOCAL_MODEL,
  type LocalEmbedderOptions,
} from "./embeddings/local.js";
export {
  createOpenAiCompatibleEmbedder,
  type OpenAiCompatibleOptions,
} from "./embeddings/openai-compatible.js";
export { createEmbeddings, type Embeddings } from "./embeddings/service.js";
export { BLOCKING_REASONS, type SimilarFailure } from "./engine/failure-embeddings.js";
export type { EventHub, EventListener } from "./engine/hub.js";
export type { CallbackRejection } from "./engine/inbound-sms.js";
export {
  createInboundMessagesOtpSource,
  extractOtpCode,
  type InboundMessage,
  type InboundMessagesOtpSource,
  type OtpRequest,
  type OtpSource,
} from "./engine/otp-source.js";
export {
  createOutboundPolicy,
  DEFAULT_DENIED_HOSTS,
  type HostLookup,
  type OutboundDecision,
  type OutboundPolicy,
  type OutboundPolicyOptions,
} from "./engine/outbound.js";
export { createRedactor, MIN_SUBSTRING_LENGTH, type Redactor } from "./engine/redactor.js";
export {
  createRunsEngine,
  type EventListQuery,
  type IdempotencyOptions,
  type ListQuery,
  type RunListQuery,
  type RunsEngine,
  type RunsEngineOptions,
  type RunsObserver,
} from "./engine/runs-engine.js";
export { loadSecretsKey, SECRETS_KEY_FILE } from "./engine/secret-box.js";
export {
  FlowNotFoundError,
  IdempotencyKeyReusedError,
  InvalidInputError,
  OtpUnavailableError,
  ResumeRefusedError,
  RUNS_ERROR_CODES,
  RunNotFoundError,
  RunStateError,
  RunsError,
  type RunsErrorCode,
  TemplateNotFoundError,
  VersionConflictError,
} from "./errors.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "./steps/http-response.js";
export { STEP_TYPES, stepTypeOf } from "./steps/registry.js";
export type { StepContext, StepType } from "./steps/step-type.js";
export { migrate } from "./store/migrate.js";
