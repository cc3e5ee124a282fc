import { INSTRUCTION_GRAMMAR } from "../domain/cu-grammar.js";
import { RunsError } from "./errors.js";

/*
 * The errors of the browser lanes: recording sessions and computer use. Their codes are listed in
 * `RUNS_ERROR_CODES` with the others.
 */

/** The session is not live in this process (finished, failed, or held by another server process). */
export class SessionNotActiveError extends RunsError {
  constructor(sessionId: string, status: string, why: string) {
    super("SESSION_NOT_ACTIVE", `Session ${sessionId} is ${status}: ${why}`, { status });
  }
}

/**
 * `start_url` is not an absolute http(s) URL, it did not load, or the outbound policy refused it (or a
 * hop of its redirects): a denied host, the server's own address, or a protected payment provider.
 */
export class SessionStartError extends RunsError {
  constructor(
    code: "START_URL_INVALID" | "START_URL_UNREACHABLE" | "START_URL_DENIED",
    message: string,
    details?: unknown,
  ) {
    super(code, message, details);
  }
}

/** No computer-use session, or no action of it, with that id. */
export class ComputerUseNotFoundError extends RunsError {
  constructor(code: "CU_SESSION_NOT_FOUND" | "ACTION_NOT_FOUND", id: string, of?: string) {
    super(
      code,
      code === "CU_SESSION_NOT_FOUND"
        ? `No computer-use session ${id}.`
        : `No action ${id} in computer-use session ${of ?? "?"}.`,
    );
  }
}

/**
 * The action may not run (or be decided) now: it needs a person's confirmation first, a person rejected
 * it, it was already confirmed, rejected or executed, or its page changed since it was previewed
 * (`PREVIEW_STALE`: nothing ran; preview it again).
 */
export class ActionRefusedError extends RunsError {
  constructor(
    code: "CONFIRMATION_REQUIRED" | "ACTION_REJECTED" | "ACTION_ALREADY_DECIDED" | "PREVIEW_STALE",
    message: string,
    details?: unknown,
  ) {
    super(code, message, details);
  }
}

/** The planner could not turn the instruction into an action on this page. */
export class InstructionNotUnderstoodError extends RunsError {
  constructor(message: string) {
    super("INSTRUCTION_NOT_UNDERSTOOD", message, { grammar: [...INSTRUCTION_GRAMMAR] });
  }
}

/** A preview's screenshot is not base64 of an `image/*` type, or is larger than 8 MiB. */
export class ScreenshotRefusedError extends RunsError {
  constructor(code: "SCREENSHOT_INVALID" | "SCREENSHOT_TOO_LARGE", message: string) {
    super(code, message);
  }
}

/** The chosen planner is not configured, or its endpoint failed or answered nonsense. */
export class PlannerError extends RunsError {
  constructor(code: "PLANNER_UNAVAILABLE" | "PLANNER_FAILED", message: string) {
    super(code, message);
  }
}
