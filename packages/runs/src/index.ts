/**
 * @module @vetted/runs
 *
 * The run engine of a UI-automation platform: flows as data (a registry of step types), templates with
 * validated params and policies, and durable runs that pause at one-time-code, approval and input gates,
 * resume with a compare-and-set, time out on schedule and survive restarts.
 */

/** The engines' ports and pages, from `@vetted/store`. */
export type { Clock, IdGenerator, KeysetPage, KeysetPage as Page } from "@vetted/store";
// The automation command lane.
export {
  CommandNotFoundError,
  CommandsFileError,
  QueueFullError,
  TaskFinishedError,
  TaskNotFoundError,
} from "./automation-errors.js";
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
  findChromium,
  type StorageState,
} from "./browser/index.js";
export {
  ALERT_CODES,
  ALERT_SEVERITIES,
  type Alert,
  type AlertCode,
  type AlertFacts,
  type AlertSeverity,
  decideAlerts,
  type FinishedCounts,
  failureRate,
  severityFor,
} from "./domain/alerts.js";
// Recording sessions and computer use (the browser lanes).
export { type AriaNode, parseAriaSnapshot } from "./domain/aria-snapshot.js";
export {
  AutomationTask,
  appendTail,
  argvReferences,
  CommandInfo,
  CommandSpec,
  canMoveTask,
  decideAfterAttempt,
  interpolateArgv,
  isTaskTerminal,
  OUTPUT_TAIL_LINES,
  RunTaskInput,
  retryDelayMs,
  TASK_REASONS,
  TASK_STATUSES,
  TASK_TRANSITIONS,
  type TaskReason,
  type TaskStatus,
} from "./domain/automation.js";
export {
  BROWSER_ASSERT_FIELDS,
  ClickStep,
  ExtractStep,
  isBrowserAssert,
  NavigateStep,
  ScreenshotStep,
  SELECTOR_KINDS,
  Selector,
  SelectStep,
  Target,
  TypeStep,
  WaitForStep,
} from "./domain/browser-steps.js";
export {
  ACTION_STATUSES,
  ACTION_TRANSITIONS,
  CuAction,
  CuConfirmInput,
  CuEvidence,
  CuExecution,
  CuPreviewInput,
  CuSession,
  CuSessionInput,
  canMoveAction,
  MAX_SCREENSHOT_BYTES,
  PLANNER_KINDS,
  type PlannerKind,
} from "./domain/computer-use.js";
export {
  INSTRUCTION_GRAMMAR,
  type PlannedAction,
  type PlanResult,
  planLocally,
} from "./domain/cu-grammar.js";
export {
  EMBEDDINGS_MAX_CHARS,
  EMBEDDINGS_MAX_TEXTS,
  EmbeddingsBatchRequest,
  EmbeddingsBatchResponse,
  hasControlCharacters,
} from "./domain/embeddings.js";
export { Flow, FlowInput, FlowPatch } from "./domain/flow.js";
export { buildFlowDraft, type DraftStep, type FlowDraftBody } from "./domain/flow-draft.js";
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
export { releaseBrief } from "./domain/proof/brief.js";
export { compareRuns } from "./domain/proof/compare.js";
// Proof and review.
export type { FactEvent, FactEvidence, RunFacts } from "./domain/proof/facts.js";
export { assessFeasibility } from "./domain/proof/feasibility.js";
export { buildReport, diffReports } from "./domain/proof/report.js";
export { reviewFindings } from "./domain/proof/review.js";
export {
  BLOCKED_CODES,
  CAMPAIGN_POLICIES,
  CAPABILITIES,
  Campaign,
  CampaignDiff,
  CampaignDiffInput,
  CampaignInput,
  CampaignReport,
  CampaignWithReport,
  Feasibility,
  FINDING_KINDS,
  Finding,
  Narrative,
  RECOMMENDATIONS,
  ReleaseBrief,
  RunCompareInput,
  RunComparison,
  RunReview,
  SEVERITIES,
  SimilarFailureMatch,
  VIOLATION_CODES,
} from "./domain/proof/schemas.js";
export {
  DEFAULT_PROTECTED_PROVIDER_DOMAINS,
  matchProtectedDomain,
  matchProtectedHost,
  parseProtectedDomains,
} from "./domain/providers.js";
export {
  FromArtifactsInput,
  GenerateInput,
  GenerateResult,
  PreviewFlowDraft,
  PreviewInput,
  ProfileResolveInput,
  ProfileResult,
  ReconstructionArtifacts,
  ReconstructionPreview,
} from "./domain/reconstruction/api.js";
export { Har, harExchanges } from "./domain/reconstruction/har.js";
export {
  EXTRACTOR_STRATEGIES,
  type ExtractorStrategy,
  UNRESOLVED_BELOW,
} from "./domain/reconstruction/inputs.js";
export { buildPreview, PREVIEW_MODES } from "./domain/reconstruction/preview.js";
export {
  PROFILE_SIGNALS,
  type Profile,
  type ProfileSignal,
  resolveProfile,
} from "./domain/reconstruction/profile.js";
export { isCardNumber, sensitiveKindOf } from "./domain/reconstruction/sensitive.js";
export { RecordedEvent } from "./domain/recording.js";
// The template lifecycle, recovery plans and wait guidance (issue 15).
export {
  planRecovery,
  RECOVERY_ACTION_IDS,
  type RecoverableRun,
  RecoverPlan,
  RecoveryAction,
  SAFETY_LEVELS,
} from "./domain/recover-plan.js";
export { ACTION_NAMES, type ActionName, classifyRisk, RISK_LEVELS, type RiskLevel } from "./domain/risk.js";
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
export { RUN_CHANGE_TYPES, RunChange, type RunChangeType } from "./domain/run-change.js";
export {
  FlowDraft,
  FlowFromSessionInput,
  isHttpUrl,
  SESSION_STATUSES,
  Session,
  SessionArtifact,
  SessionStartInput,
} from "./domain/session.js";
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
  MAX_RUM_BATCH,
  MAX_RUM_PATHS,
  normalizeRumPath,
  percentile,
  RUM_METRICS,
  RUM_NO_PATH,
  RUM_OTHER_PATH,
  RUM_RATINGS,
  RUM_SAMPLE_WINDOW,
  RumAccepted,
  type RumAggregate,
  RumIngest,
  type RumMetric,
  RumSample,
  samplesOf,
} from "./domain/telemetry.js";
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
  ForkInput,
  PromoteInput,
  TEMPLATE_EXPORT_FORMAT,
  TemplateExport,
  TemplateHistory,
} from "./domain/template-lifecycle.js";
export { MASKED } from "./domain/template-mask.js";
export {
  canMoveTemplate,
  TEMPLATE_STATUSES,
  TEMPLATE_TRANSITIONS,
  type TemplateStatus,
} from "./domain/template-status.js";
// The command tower (issue 17).
export { applyDraftEdits, TowerDraftEdit, TowerDraftPatch } from "./domain/tower-draft.js";
export {
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "./domain/transitions.js";
export {
  describeWait,
  EvidenceRef,
  REQUIRED_ACTION_KINDS,
  RequiredAction,
  type WaitGuidance,
} from "./domain/wait-guidance.js";
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
} from "./domain/webhooks.js";
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
export {
  type AutomationCommand,
  type CommandContext,
  type CommandResult,
  compileParamsSchema,
  type OutputKind,
} from "./engine/automation/commands.js";
export { loadCommandsFile, parseCommandsFile } from "./engine/automation/commands-file.js";
export {
  type AutomationEngine,
  createAutomationEngine,
  type TaskListQuery,
} from "./engine/automation/engine.js";
export type { OutputListener } from "./engine/automation/output-hub.js";
export { createProcessCommand, type ProcessCommandOptions } from "./engine/automation/process-command.js";
export {
  createReplayFlowCommand,
  type ReplayFlowInput,
  type RunStarter,
  replayFlow,
} from "./engine/automation/replay-flow.js";
export type { AutomationEngineOptions } from "./engine/automation/resources.js";
export type { OnTaskTransition, OutputEntry, TaskTransition } from "./engine/automation/task-store.js";
export type { ChangeHub, ChangeListener } from "./engine/change-hub.js";
export {
  type ComputerUseEngine,
  type ComputerUseEngineOptions,
  createComputerUseEngine,
  type LiveSessions,
} from "./engine/computer-use/cu-engine.js";
export { createOpenAiPlanner, type OpenAiPlannerOptions } from "./engine/computer-use/openai-planner.js";
export { createLocalPlanner, type Planner, type PlannerRequest } from "./engine/computer-use/planner.js";
export { StepEvidence } from "./engine/evidence.js";
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
export {
  createProofEngine,
  type ProofEngine,
  type ProofEngineOptions,
  type ReviewModelOptions,
} from "./engine/proof/proof-engine.js";
export { GENERATED_LABEL } from "./engine/proof/review-model.js";
export {
  createReconstructionEngine,
  PREVIEW_TTL_MS,
  type ReconstructionEngine,
  type ReconstructionEngineOptions,
} from "./engine/reconstruction/reconstruction-engine.js";
export { createRedactor, MIN_SUBSTRING_LENGTH, type Redactor } from "./engine/redactor.js";
export {
  createRunsEngine,
  type EventListQuery,
  type EvidenceQuery,
  type IdempotencyOptions,
  type ListQuery,
  type RunListQuery,
  type RunsEngine,
  type RunsEngineOptions,
  type RunsObserver,
  type SessionStates,
} from "./engine/runs-engine.js";
export { loadSecretsKey, SECRETS_KEY_FILE } from "./engine/secret-box.js";
export { RECORDER_SCRIPT } from "./engine/sessions/recorder-script.js";
export {
  createSessionsEngine,
  type SessionsEngine,
  type SessionsEngineOptions,
} from "./engine/sessions/sessions-engine.js";
export {
  createTelemetry,
  type RunHealth,
  type Telemetry,
  type TelemetryOptions,
} from "./engine/telemetry/index.js";
export { isTemplateExport, type TemplateLifecycleHooks } from "./engine/template-lifecycle.js";
export {
  createTowerEngine,
  LatestFlow,
  ReplayPreconditions,
  type TowerDraft,
  type TowerEngine,
  type TowerEngineOptions,
  type TowerEvidence,
  TowerEvidenceSchema,
  type TowerReplay,
  TowerReplayInput,
  type TowerRuns,
  TowerStepReplayInput,
} from "./engine/tower/tower-engine.js";
export type { FeedEntry, WebhookFeed } from "./engine/webhooks/feeds.js";
export {
  createTaskFinishedHook,
  enqueueWebhookEvent,
  type FinishedTaskFacts,
  type OutboxEvent,
} from "./engine/webhooks/outbox.js";
export type { WebhooksEngineOptions } from "./engine/webhooks/resources.js";
export { createWebhooksEngine, type WebhooksEngine } from "./engine/webhooks/webhooks-engine.js";
export {
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
} from "./errors.js";
export {
  ActionRefusedError,
  ComputerUseNotFoundError,
  InstructionNotUnderstoodError,
  PlannerError,
  ScreenshotRefusedError,
  SessionNotActiveError,
  SessionStartError,
} from "./lane-errors.js";
export {
  ArtifactNotFoundError,
  ArtifactTooLargeError,
  HarInvalidError,
  PathOutsideRootError,
  PreviewUnavailableError,
} from "./reconstruction-errors.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "./steps/http-response.js";
export { STEP_TYPES, stepTypeOf } from "./steps/registry.js";
export type { StepContext, StepType } from "./steps/step-type.js";
export { migrate } from "./store/migrate.js";
export { DraftStepNotFoundError, SessionIdInvalidError } from "./tower-errors.js";
export { WebhookNotFoundError, WebhookUrlDeniedError } from "./webhook-errors.js";
