// The browser lanes: the Chromium host, browser steps, recording sessions and their flow drafts,
// computer use. Re-exported by `src/index.ts`.

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
} from "../core/browser/index.js";
export { type AriaNode, parseAriaSnapshot } from "../domain/aria-snapshot.js";
export {
  BROWSER_ASSERT_FIELDS,
  ClickStep,
  ExtractStep,
  FrameScope,
  isBrowserAssert,
  NavigateStep,
  ScreenshotStep,
  SELECTOR_KINDS,
  Selector,
  SelectStep,
  Target,
  TypeStep,
  WaitForStep,
} from "../domain/browser-steps.js";
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
} from "../domain/computer-use.js";
export {
  INSTRUCTION_GRAMMAR,
  type PlannedAction,
  type PlanResult,
  planLocally,
} from "../domain/cu-grammar.js";
export { buildFlowDraft, type DraftStep, type FlowDraftBody } from "../domain/flow-draft.js";
export { RecordedEvent } from "../domain/recording.js";
export { ACTION_NAMES, type ActionName, classifyRisk, RISK_LEVELS, type RiskLevel } from "../domain/risk.js";
export {
  FlowDraft,
  FlowFromSessionInput,
  isHttpUrl,
  SESSION_STATUSES,
  Session,
  SessionArtifact,
  SessionStartInput,
} from "../domain/session.js";
export {
  ActionRefusedError,
  ComputerUseNotFoundError,
  InstructionNotUnderstoodError,
  PlannerError,
  ScreenshotRefusedError,
  SessionNotActiveError,
  SessionStartError,
} from "../kernel/lane-errors.js";
export {
  type ComputerUseEngine,
  type ComputerUseEngineOptions,
  createComputerUseEngine,
  createLocalPlanner,
  createOpenAiPlanner,
  type LiveSessions,
  type OpenAiPlannerOptions,
  type Planner,
  type PlannerRequest,
} from "../lanes/computer-use/index.js";
export {
  createSessionsEngine,
  RECORDER_SCRIPT,
  type SessionsEngine,
  type SessionsEngineOptions,
} from "../lanes/sessions/index.js";
