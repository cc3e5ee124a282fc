import { RunsError } from "./errors.js";

/** The command tower's latest flow has no step with that id (an edit, a replay or an evidence query). */
export class DraftStepNotFoundError extends RunsError {
  override readonly name = "DraftStepNotFoundError";
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
