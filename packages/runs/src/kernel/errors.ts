/** Every code `@vetted/runs` throws, stable across versions. */
export const RUNS_ERROR_CODES = [
  "FLOW_NOT_FOUND",
  "TEMPLATE_NOT_FOUND",
  "RUN_NOT_FOUND",
  "TEMPLATE_INVALID",
  "FLOW_INVALID",
  "PARAMS_INVALID",
  "VERSION_CONFLICT",
  "RUN_NOT_WAITING",
  "RUN_FINISHED",
  "RESUME_KIND_NOT_ALLOWED",
  "IDEMPOTENCY_KEY_REUSED",
  "OTP_UNAVAILABLE",
  "INPUT_INVALID",
  "REQUEST_INVALID",
  "ILLEGAL_TRANSITION",
  "BROWSER_UNAVAILABLE",
  "BROWSER_CRASHED",
  "BROWSER_BUSY",
  "SESSION_NOT_FOUND",
  "STEP_NOT_FOUND",
  "SESSION_ID_INVALID",
  // Sessions and computer use (see lane-errors.ts).
  "SESSION_NOT_ACTIVE",
  "START_URL_INVALID",
  "START_URL_UNREACHABLE",
  "START_URL_DENIED",
  "CU_SESSION_NOT_FOUND",
  "ACTION_NOT_FOUND",
  "CONFIRMATION_REQUIRED",
  "ACTION_REJECTED",
  "ACTION_ALREADY_DECIDED",
  "PREVIEW_STALE",
  "INSTRUCTION_NOT_UNDERSTOOD",
  "SCREENSHOT_INVALID",
  "SCREENSHOT_TOO_LARGE",
  "PLANNER_UNAVAILABLE",
  "PLANNER_FAILED",
  "UPSTREAM_FAILED",
  "UPSTREAM_TIMEOUT",
  "EMBEDDINGS_BUSY",
  "EMBEDDINGS_UNAVAILABLE",
  "MODEL_UNKNOWN",
  // The automation command lane (see automation-errors.ts).
  "COMMAND_NOT_FOUND",
  "TASK_NOT_FOUND",
  "TASK_FINISHED",
  "QUEUE_FULL",
  "COMMANDS_FILE_INVALID",
  "PARAM_LOOKS_LIKE_OPTION",
  // Template lifecycle and recovery plans.
  "RUN_NOT_PROMOTABLE",
  "TEMPLATE_STATUS_CONFLICT",
  "RUN_NOT_RECOVERABLE",
  "RUN_NOT_RETRYABLE",
  // Proof and review.
  "CAMPAIGN_NOT_FOUND",
  // Signed webhooks (see webhook-errors.ts).
  "WEBHOOK_NOT_FOUND",
  "WEBHOOK_DELIVERY_NOT_FOUND",
  "WEBHOOK_URL_DENIED",
  // Profiles and reconstruction (see reconstruction-errors.ts).
  "PATH_OUTSIDE_ROOT",
  "ARTIFACT_NOT_FOUND",
  "ARTIFACT_TOO_LARGE",
  "HAR_INVALID",
  "PREVIEW_NOT_FOUND",
  "PREVIEW_EXPIRED",
  // Taking over a paused run's browser page (see core/takeover.ts).
  "TAKEOVER_NOT_WAITING",
  "TAKEOVER_NO_BROWSER",
  "TAKEOVER_NOT_IN_CONTROL",
  "TAKEOVER_IN_CONTROL_ELSEWHERE",
] as const;

/** A code from {@link RUNS_ERROR_CODES}. */
export type RunsErrorCode = (typeof RUNS_ERROR_CODES)[number];

/**
 * The one base error of `@vetted/runs`: a broken precondition with a stable `code` and optional `details`.
 * Its `name` is its class's name (`RunsError`, `FlowNotFoundError`, …).
 */
export class RunsError extends Error {
  override readonly name: string;
  constructor(
    readonly code: RunsErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** An error class for one code: `new X(message, details?)`. */
function withCode(code: RunsErrorCode) {
  return class extends RunsError {
    constructor(message: string, details?: unknown) {
      super(code, message, details);
    }
  };
}

/** An error class for a choice of codes: `new X(code, message, details?)`. */
function withCodes<C extends RunsErrorCode>() {
  return class extends RunsError {
    constructor(code: C, message: string, details?: unknown) {
      super(code, message, details);
    }
  };
}

/** An error class for an id that names nothing: `new X(id)` says "No <what> <id>.". */
function notFound(code: RunsErrorCode, what: string) {
  return class extends RunsError {
    constructor(id: string) {
      super(code, `No ${what} ${id}.`);
    }
  };
}

/** No flow with that id (or not at that version). */
export class FlowNotFoundError extends RunsError {
  constructor(flowId: string, version?: number) {
    super(
      "FLOW_NOT_FOUND",
      version === undefined ? `No flow ${flowId}.` : `No flow ${flowId} at version ${version}.`,
    );
  }
}

/** No template with that id. */
export class TemplateNotFoundError extends notFound("TEMPLATE_NOT_FOUND", "template") {}

/** No run with that id. */
export class RunNotFoundError extends notFound("RUN_NOT_FOUND", "run") {}

/** No proof campaign with that id. */
export class CampaignNotFoundError extends notFound("CAMPAIGN_NOT_FOUND", "proof campaign") {}

/** A flow, template, request, params or typed input that does not meet its schema. */
export class InvalidInputError extends withCodes<
  "FLOW_INVALID" | "TEMPLATE_INVALID" | "PARAMS_INVALID" | "REQUEST_INVALID" | "INPUT_INVALID"
>() {}

/** The caller's `expected_version` is not the resource's version (a flow, template or run moved on). */
export class VersionConflictError extends withCode("VERSION_CONFLICT") {}

/** The run is not in a state the verb needs: not waiting (or another resume won), or already ended. */
export class RunStateError extends withCodes<"RUN_NOT_WAITING" | "RUN_FINISHED" | "RUN_NOT_RETRYABLE">() {}

/**
 * A paused run's page cannot be taken over: the run is not waiting at a gate, it has no browser page (no
 * browser step ran, or another process holds it), the caller is not the person in control, or someone else is.
 */
export class TakeoverError extends withCodes<
  "TAKEOVER_NOT_WAITING" | "TAKEOVER_NO_BROWSER" | "TAKEOVER_NOT_IN_CONTROL" | "TAKEOVER_IN_CONTROL_ELSEWHERE"
>() {}

/** The run waits, but not for this kind of answer (or the typed input breaks the gate's constraints). */
export class ResumeRefusedError extends withCodes<"RESUME_KIND_NOT_ALLOWED" | "INPUT_INVALID">() {}

/** An `Idempotency-Key` sent again with a different request body. */
export class IdempotencyKeyReusedError extends RunsError {
  constructor() {
    super(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was already used with a different request body; use a new key.",
    );
  }
}

/** No one-time code to resume with: no OTP source configured, or none arrived yet. */
export class OtpUnavailableError extends withCode("OTP_UNAVAILABLE") {}

/** A status change the run state machine does not allow (a bug in the caller, never bad input). */
export class IllegalTransitionError extends RunsError {
  constructor(from: string, to: string) {
    super("ILLEGAL_TRANSITION", `A run cannot move from ${from} to ${to}.`, { from, to });
  }
}

/**
 * No browser to drive: none found, it would not start, or the optional `playwright-core` package that
 * drives it is not installed. The message says what to install.
 */
export class BrowserUnavailableError extends RunsError {
  constructor(reason: string, missing: "chromium" | "playwright-core" = "chromium") {
    super(
      "BROWSER_UNAVAILABLE",
      missing === "playwright-core"
        ? `No browser is available (${reason}). Browser steps need the optional package playwright-core: ` +
            "`npm install playwright-core` beside @vetted/runs, then restart."
        : `No browser is available (${reason}). Install Chromium with \`apt-get install -y chromium\` ` +
            "(or point VETTED_CHROMIUM_PATH at a Chromium or Chrome executable) and restart the server.",
      {
        reason,
        install:
          missing === "playwright-core" ? "npm install playwright-core" : "apt-get install -y chromium",
      },
    );
  }
}

/** The browser process died under a lease; the host restarts it, and the work may be retried. */
export class BrowserCrashedError extends RunsError {
  readonly retryable = true;
  constructor(message = "The browser crashed; it is being restarted. Retry the operation.") {
    super("BROWSER_CRASHED", message, { retryable: true });
  }
}

/**
 * Every browser context is held and none freed within the acquire's wait: try again shortly
 * (`Retry-After`). Interactive requests (a session start, a computer-use page) fail with it rather than hang.
 */
export class BrowserBusyError extends RunsError {
  readonly retryAfterS = 5;
  constructor(maxContexts: number, waitedMs: number, queued: number) {
    super(
      "BROWSER_BUSY",
      `All ${maxContexts} browser contexts are in use and none freed within ${waitedMs} ms; try again in a few seconds.`,
      { max_contexts: maxContexts, waited_ms: waitedMs, queued, retry_after_s: 5 },
    );
  }
}

/** No session with that id (or it holds no saved browser state). */
export class SessionNotFoundError extends RunsError {
  constructor(sessionId: string, why = "") {
    super("SESSION_NOT_FOUND", `No session ${sessionId}${why === "" ? "" : ` ${why}`}.`);
  }
}

/** The run has no step with that id. */
export class StepNotFoundError extends RunsError {
  constructor(runId: string, stepId: string) {
    super("STEP_NOT_FOUND", `Run ${runId} has no step ${stepId}.`);
  }
}

/** A template verb the version's lifecycle status forbids (activating an archived version, forking one). */
export class TemplateStatusError extends withCode("TEMPLATE_STATUS_CONFLICT") {}

/** A run promoted to a template that did not succeed (failed, cancelled, or not finished yet). */
export class RunNotPromotableError extends withCode("RUN_NOT_PROMOTABLE") {}

/** A recovery plan asked of a run with nothing to recover (queued, running, succeeded). */
export class RunNotRecoverableError extends withCode("RUN_NOT_RECOVERABLE") {}
