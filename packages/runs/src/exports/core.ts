// The run engine itself: flows, templates, runs and their state machine, steps and the step registry,
// gates, the outbound policy, errors and migrations. Re-exported by `src/index.ts`, like every lane.

/** The engines' ports and pages, from `@vetted/store`. */
export type { Clock, IdGenerator, KeysetPage, KeysetPage as Page } from "@vetted/store";
/**
 * Opens a database the way the Vetted server does (re-exported from `@vetted/store/database`): every write
 * through the one writer, another process's lock waited out without blocking the event loop, then
 * `DATABASE_BUSY`, and no connection reused after it met "busy".
 */
export { type DatabaseOptions, type OpenDatabase, openDatabase } from "@vetted/store/database";
export { StepEvidence } from "../core/evidence.js";
export type {
  EventListQuery,
  EvidenceQuery,
  IdempotencyOptions,
  ListQuery,
  RunListQuery,
  RunsObserver,
  SessionStates,
} from "../core/runs-engine.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "../core/steps/http-response.js";
export { STEP_TYPES, stepTypeOf } from "../core/steps/registry.js";
export type { StepContext, StepType } from "../core/steps/step-type.js";
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
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "../domain/transitions.js";
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
export { createRunsEngine, type RunsEngine, type RunsEngineOptions } from "../platform.js";
export { migrate } from "../store/migrate.js";
