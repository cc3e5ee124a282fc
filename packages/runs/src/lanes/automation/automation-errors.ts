import { RunsError } from "../../kernel/errors.js";

/*
 * The errors of the automation command lane. Their codes are listed in `RUNS_ERROR_CODES` with the others;
 * a high-risk command without `confirm: true` reuses `CONFIRMATION_REQUIRED`, bad params `PARAMS_INVALID`.
 */

/** No command with that id in the allowlist. */
export class CommandNotFoundError extends RunsError {
  constructor(commandId: string, known: readonly string[]) {
    super(
      "COMMAND_NOT_FOUND",
      `No automation command ${JSON.stringify(commandId)}; GET /api/automation/commands lists them.`,
      { known },
    );
  }
}

/** No task with that id. */
export class TaskNotFoundError extends RunsError {
  constructor(taskId: string) {
    super("TASK_NOT_FOUND", `No automation task ${taskId}.`);
  }
}

/** The task already ended (success, failed or cancelled): it cannot be cancelled. */
export class TaskFinishedError extends RunsError {
  constructor(taskId: string, status: string) {
    super("TASK_FINISHED", `Task ${taskId} already ended (${status}); nothing to cancel.`, { status });
  }
}

/** As many tasks wait in the queue as it holds (`queueMax`): try again once some have started. */
export class QueueFullError extends RunsError {
  constructor(
    queued: number,
    readonly retryAfterS: number,
  ) {
    super(
      "QUEUE_FULL",
      `The automation queue is full (${queued} tasks waiting); retry after ${retryAfterS} s or raise VETTED_AUTOMATION_QUEUE_MAX.`,
      { queued, retry_after_s: retryAfterS },
    );
  }
}

/** The operator commands file cannot be used: the offending entry (index and id) is named. */
export class CommandsFileError extends RunsError {
  constructor(message: string, details?: unknown) {
    super("COMMANDS_FILE_INVALID", message, details);
  }
}

/**
 * A param would reach the program as an option (`--help`, `-rf`) where the command expects a positional
 * value: refused before anything runs. The operator may put a literal `--` before the element instead.
 */
export class ParamLooksLikeOptionError extends RunsError {
  constructor(commandId: string, params: readonly string[], index: number) {
    super(
      "PARAM_LOOKS_LIKE_OPTION",
      `${commandId}: the value of ${params.map((p) => `params.${p}`).join(", ") || "a param"} begins with "-" and would be read as an option (argv[${index}]); positional values may not begin with "-".`,
      { command_id: commandId, params, argv_index: index },
    );
  }
}
