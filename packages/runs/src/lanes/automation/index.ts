// The automation lane: command tasks run as processes or replayed flows, their attempts, output and claims.
// What the lane offers the rest of the package; `src/exports/*` re-export the public part.

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
