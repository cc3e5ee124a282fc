import { RunsError } from "../../kernel/errors.js";

/** The command tower's latest flow has no step with that id (an edit, a replay or an evidence query). */
export class DraftStepNotFoundError extends RunsError {
  constructor(sessionId: string, message: string) {
    super(
      "STEP_NOT_FOUND",
      `${message} (the latest flow is session ${sessionId}'s; GET latest-flow lists its steps)`,
      {
        session_id: sessionId,
      },
    );
  }
}

/** A tower query's `session_id` is empty or not a session id (omit it, or say `none`, for the latest). */
export class SessionIdInvalidError extends RunsError {
  constructor(message: string) {
    super("SESSION_ID_INVALID", message, { field: "session_id" });
  }
}
