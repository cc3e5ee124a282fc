/** Every code `@vetted/runs` throws, stable across versions. */
export const RUNS_ERROR_CODES = [
  "FLOW_NOT_FOUND",
  "TEMPLATE_NOT_FOUND",
  "RUN_NOT_FOUND",
  "TEMPLATE_INVALID",
  "FLOW_INVALID",
  "PARAMS_INVALID",
  "VERSION_MISMATCH",
  "RUN_NOT_WAITING",
  "RUN_FINISHED",
  "RESUME_KIND_NOT_ALLOWED",
  "IDEMPOTENCY_KEY_REUSED",
  "OTP_UNAVAILABLE",
  "INPUT_INVALID",
  "REQUEST_INVALID",
] as const;

/** A code from {@link RUNS_ERROR_CODES}. */
export type RunsErrorCode = (typeof RUNS_ERROR_CODES)[number];

/** The one base error of `@vetted/runs`: a broken precondition with a stable `code` and optional `details`. */
export class RunsError extends Error {
  override readonly name: string = "RunsError";
  constructor(
    readonly code: RunsErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A flow, template or run that does not exist. */
export class NotFoundError extends RunsError {
  override readonly name = "NotFoundError";
}

/** A compare-and-set lost: the run is not waiting, the version moved, the run already finished. */
export class ConflictError extends RunsError {
  override readonly name = "ConflictError";
}

/** A request that is well-formed but cannot be honoured (wrong resume kind, bad params, no OTP). */
export class UnprocessableError extends RunsError {
  override readonly name = "UnprocessableError";
}
