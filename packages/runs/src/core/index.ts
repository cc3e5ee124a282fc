/**
 * The run core's public API: flows, templates and their lifecycle, runs and their state machine, steps and
 * the step registry, gates, the browser host, the outbound policy, errors and migrations. `src/index.ts`
 * re-exports it beside each lane's `index.ts`.
 * @module
 */

/** The engines' ports and pages, from `@vetted/store`. */
export type { Clock, IdGenerator, KeysetPage, KeysetPage as Page } from "@vetted/store";
/**
 * Opens a database the way the Vetted server does (re-exported from `@vetted/store/database`): every write
 * through the one writer, another process's lock waited out without blocking the event loop, then
 * `DATABASE_BUSY`, and no connection reused after it met "busy".
 */
export { type DatabaseOptions, type OpenDatabase, openDatabase } from "@vetted/store/database";
export { type AriaNode, parseAriaSnapshot } from "../domain/aria-snapshot.js";
export {
  APPROVED_LATE_REQUEST_MS,
  BROWSER_ASSERT_FIELDS,
  ClickStep,
  ExtractStep,
  FrameScope,
  isBrowserAssert,
  LATE_REQUEST_MS,
  lateRequestWindowMs,
  NavigateStep,
  ScreenshotStep,
  SELECTOR_KINDS,
  Selector,
  SelectStep,
  Target,
  TypeStep,
  WaitForStep,
} from "../domain/browser-steps.js";
export { Flow, FlowInput, FlowPatch } from "../domain/flow.js";
export {
  type CanonicalHost,
  canonicalAddress,
  canonicalHost,
  type HostRule,
  parseHostRule,
  parseHostRules,
} from "../domain/host.js";
export { type Interpolated, interpolate, references, type Scope } from "../domain/interpolate.js";
export {
  DEFAULT_PROTECTED_PROVIDER_DOMAINS,
  matchProtectedDomain,
  matchProtectedHost,
  parseProtectedDomains,
} from "../domain/providers.js";
export {
  planRecovery,
  RECOVERY_ACTION_IDS,
  type RecoverableRun,
  RecoverPlan,
  RecoveryAction,
  SAFETY_LEVELS,
} from "../domain/recover-plan.js";
export { planRetry, type RetryPlan, RetryRunRequest, type RetrySource } from "../domain/retry.js";
export {
  CancelRunRequest,
  CreateRunInput,
  EVENT_TYPES,
  type EventType,
  ResumeRequest,
  Run,
  RunEvent,
  RunOtpSubmitRequest,
  WaitContext,
} from "../domain/run.js";
export { RUN_CHANGE_TYPES, RunChange, type RunChangeType } from "../domain/run-change.js";
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
} from "../domain/status.js";
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
} from "../domain/steps.js";
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
} from "../domain/template.js";
export {
  ForkInput,
  PromoteInput,
  TEMPLATE_EXPORT_FORMAT,
  TemplateExport,
  TemplateHistory,
} from "../domain/template-lifecycle.js";
export { MASKED } from "../domain/template-mask.js";
export {
  canMoveTemplate,
  TEMPLATE_STATUSES,
  TEMPLATE_TRANSITIONS,
  type TemplateStatus,
} from "../domain/template-status.js";
export {
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "../domain/transitions.js";
export {
  describeWait,
  EvidenceRef,
  REQUIRED_ACTION_KINDS,
  RequiredAction,
  type WaitGuidance,
} from "../domain/wait-guidance.js";
export type { ChangeHub, ChangeListener } from "../kernel/change-hub.js";
export {
  BrowserBusyError,
  BrowserCrashedError,
  BrowserUnavailableError,
  CampaignNotFoundError,
  FlowNotFoundError,
  IdempotencyKeyReusedError,
  InvalidInputError,
  OtpUnavailableError,
  ResumeRefusedError,
  RUNS_ERROR_CODES,
  RunNotFoundError,
  RunNotPromotableError,
  RunNotRecoverableError,
  RunStateError,
  RunsError,
  type RunsErrorCode,
  SessionNotFoundError,
  StepNotFoundError,
  TakeoverError,
  TemplateNotFoundError,
  TemplateStatusError,
  VersionConflictError,
} from "../kernel/errors.js";
export type { EventHub, EventListener } from "../kernel/hub.js";
export {
  createOutboundPolicy,
  DEFAULT_DENIED_HOSTS,
  type HostLookup,
  type OutboundDecision,
  type OutboundPolicy,
  type OutboundPolicyOptions,
} from "../kernel/outbound.js";
export { createRedactor, MIN_SUBSTRING_LENGTH, type Redactor } from "../kernel/redactor.js";
export { loadSecretsKey, SECRETS_KEY_FILE } from "../kernel/secret-box.js";
export { migrate } from "../store/migrate.js";
export {
  type AcquireOptions,
  type BrowserHost,
  type BrowserHostLogger,
  type BrowserHostOptions,
  type BrowserHostStatus,
  type BrowserLease,
  CHROMIUM_CANDIDATES,
  CHROMIUM_INSTALL_COMMAND,
  createBrowserHost,
  DEFAULT_HOLDING,
  findChromium,
  type HoldPolicy,
  type LeasePurpose,
  type StorageState,
} from "./browser/index.js";
export { StepEvidence } from "./evidence.js";
export {
  createInboundMessagesOtpSource,
  extractOtpCode,
  type InboundMessage,
  type InboundMessagesOtpSource,
  type OtpRequest,
  type OtpSource,
} from "./otp-source.js";
export type { RetryOptions, RetryResult } from "./run-retry.js";
export type {
  EventListQuery,
  EvidenceQuery,
  IdempotencyOptions,
  ListQuery,
  RunListQuery,
  RunsObserver,
  SessionStates,
} from "./runs-engine.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "./steps/http-response.js";
export { STEP_TYPES, stepTypeOf } from "./steps/registry.js";
export type { StepContext, StepType } from "./steps/step-type.js";
export type {
  LiveFrame,
  LiveInput,
  LiveStatus,
  LiveView,
  Takeover,
  TakeoverControl,
} from "./takeover.js";
export { isTemplateExport, type TemplateLifecycleHooks } from "./template-lifecycle.js";
