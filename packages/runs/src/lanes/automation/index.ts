// The automation lane: command tasks run as processes or replayed flows, their attempts, output and claims.
// What the lane offers: `src/index.ts` re-exports this file as the lane's public API.

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
} from "../../domain/automation.js";
export {
  CommandNotFoundError,
  CommandsFileError,
  QueueFullError,
  TaskFinishedError,
  TaskNotFoundError,
} from "./automation-errors.js";
export {
  type AutomationCommand,
  type CommandContext,
  type CommandResult,
  compileParamsSchema,
  type OutputKind,
} from "./commands.js";
export { loadCommandsFile, parseCommandsFile } from "./commands-file.js";
export {
  type AutomationEngine,
  createAutomationEngine,
  type TaskListQuery,
} from "./engine.js";
export type { OutputListener } from "./output-hub.js";
export { createProcessCommand, type ProcessCommandOptions } from "./process-command.js";
export {
  createReplayFlowCommand,
  type ReplayFlowInput,
  type RunStarter,
  replayFlow,
} from "./replay-flow.js";
export type { AutomationEngineOptions } from "./resources.js";
export type { OnTaskTransition, OutputEntry, TaskTransition } from "./task-store.js";
