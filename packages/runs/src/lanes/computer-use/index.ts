// The computer-use lane: a planner drives a browser page one instruction at a time, with sealed secrets and evidence.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

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
} from "../../domain/computer-use.js";
export {
  INSTRUCTION_GRAMMAR,
  type PlannedAction,
  type PlanResult,
  planLocally,
} from "../../domain/cu-grammar.js";
export {
  ACTION_NAMES,
  type ActionName,
  classifyRisk,
  RISK_LEVELS,
  type RiskLevel,
} from "../../domain/risk.js";
export {
  ActionRefusedError,
  ComputerUseNotFoundError,
  InstructionNotUnderstoodError,
  PlannerError,
  ScreenshotRefusedError,
} from "../../kernel/lane-errors.js";
export {
  type ComputerUseEngine,
  type ComputerUseEngineOptions,
  createComputerUseEngine,
  type LiveSessions,
} from "./cu-engine.js";
export { createOpenAiPlanner, type OpenAiPlannerOptions } from "./openai-planner.js";
export { createLocalPlanner, type Planner, type PlannerRequest } from "./planner.js";
