// The automation command lane: operator commands run as tasks, queued, leased and retried.
// Re-exported by `src/index.ts`.

export {
  CommandNotFoundError,
  CommandsFileError,
  QueueFullError,
  TaskFinishedError,
  TaskNotFoundError,
} from "../automation-errors.js";
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
} from "../domain/automation.js";
export {
  type AutomationCommand,
  type CommandContext,
  type CommandResult,
  compileParamsSchema,
  type OutputKind,
} from "../engine/automation/commands.js";
export { loadCommandsFile, parseCommandsFile } from "../engine/automation/commands-file.js";
export {
  type AutomationEngine,
  createAutomationEngine,
  type TaskListQuery,
} from "../engine/automation/engine.js";
export type { OutputListener } from "../engine/automation/output-hub.js";
export { createProcessCommand, type ProcessCommandOptions } from "../engine/automation/process-command.js";
export {
  createReplayFlowCommand,
  type ReplayFlowInput,
  type RunStarter,
  replayFlow,
} from "../engine/automation/replay-flow.js";
export type { AutomationEngineOptions } from "../engine/automation/resources.js";
export type { OnTaskTransition, OutputEntry, TaskTransition } from "../engine/automation/task-store.js";
