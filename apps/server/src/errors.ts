import { ComparisonError, type ComparisonErrorCode } from "@vetted/comparison";
import { FileorgError, type FileorgErrorCode, ReviewError, type ReviewErrorCode } from "@vetted/fileorg";
import { BrowserBusyError, RunsError, type RunsErrorCode } from "@vetted/runs";
import { QueueFullError } from "@vetted/runs/automation";
import { EmbeddingsBusyError } from "@vetted/runs/embeddings";
import { findBusyError, StoreError, type StoreErrorCode } from "@vetted/store";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";

/** Codes the HTTP layer itself raises. */
export const SERVER_ERROR_CODES = [
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "INVALID_JSON",
  "VALIDATION_FAILED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "UNAUTHORIZED",
  "FORBIDDEN_HOST",
  "FORBIDDEN_ORIGIN",
  "BAD_REQUEST",
  "INTERNAL_ERROR",
  "NESTING_TOO_DEEP",
  "CURSOR_INVALID",
  "REQUEST_HEADER_FIELDS_TOO_LARGE",
  "REQUEST_TIMEOUT",
  "SIGNATURE_INVALID",
  "SIGNATURE_ALGORITHM_UNSUPPORTED",
  "INTEGRATION_NOT_CONFIGURED",
  "RATE_LIMITED",
  "TELEMETRY_INVALID",
  "COMPARISON_NOT_CONFIGURED",
] as const;
export type ServerErrorCode = (typeof SERVER_ERROR_CODES)[number];

/** Every code the server can answer with. Packages' codes join this union as they are composed in. */
export type ErrorCode =
  | ServerErrorCode
  | RunsErrorCode
  | FileorgErrorCode
  | ReviewErrorCode
  | StoreErrorCode
  | ComparisonErrorCode;

/** An error raised by the HTTP layer (routing, parsing, auth, guards). */
export class ServerError extends Error {
  override readonly name = "ServerError";
  constructor(
    readonly code: ServerErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/**
 * The one HTTP status for each error code: the only place codes become statuses. A mapped type over the
 * whole `ErrorCode` union, so a code a package adds without a status here fails the typecheck.
 */
const STATUS_FOR_CODE: { readonly [C in ErrorCode]: ContentfulStatusCode } = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  VALIDATION_FAILED: 400,
  PREFERENCE_INVALID: 400,
  NOT_A_DIRECTORY: 400,
  INVALID_TEMPLATE: 400,
  INVALID_TARGET_PATH: 400,
  NESTING_TOO_DEEP: 400,
  CURSOR_INVALID: 400,
  CATEGORY_UNKNOWN: 400,
  PATH_NOT_ABSOLUTE: 400,
  UNKNOWN_ROW_IDS: 400,
  NOT_IN_DUPLICATE_GROUP: 400,
  UNIT_NOT_FOUND: 404,
  UNIT_KEPT_WHOLE: 409,
  CONFLICT_NOT_OPEN: 409,
  RULES_FILE_SYNTAX: 400,
  RULES_FILE_INVALID: 400,
  NOT_PREVIEWABLE: 415,
  PREVIEW_FAILED: 422,
  FILE_MISSING: 404,
  FILE_UNREADABLE: 422,
  PREVIEW_UNAVAILABLE: 503,
  UNAUTHORIZED: 401,
  FORBIDDEN_HOST: 403,
  FORBIDDEN_ORIGIN: 403,
  PATH_OUTSIDE_ROOT: 403,
  PATH_PROTECTED: 403,
  NOT_FOUND: 404,
  FLOW_NOT_FOUND: 404,
  TEMPLATE_NOT_FOUND: 404,
  RUN_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  STEP_NOT_FOUND: 404,
  SESSION_ID_INVALID: 400,
  PREFERENCE_NOT_FOUND: 404,
  REVIEW_RULE_NOT_FOUND: 404,
  WATCH_SOURCE_NOT_FOUND: 404,
  VIEW_NOT_FOUND: 404,
  LEARNED_RULE_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  ROW_NOT_FOUND: 404,
  CONFLICT_NOT_FOUND: 404,
  SOURCE_NOT_FOUND: 404,
  CATEGORY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PREFERENCE_NAME_TAKEN: 409,
  BATCH_CHANGED: 409,
  INBOX_EMPTY: 409,
  VERSION_CONFLICT: 409,
  RUN_NOT_WAITING: 409,
  RUN_FINISHED: 409,
  RUN_NOT_RETRYABLE: 409,
  TAKEOVER_NOT_WAITING: 409,
  TAKEOVER_NO_BROWSER: 409,
  TAKEOVER_NOT_IN_CONTROL: 409,
  TAKEOVER_IN_CONTROL_ELSEWHERE: 409,
  WRONG_JOB_KIND: 409,
  JOB_NOT_READY: 409,
  JOB_BUSY: 409,
  JOB_NOT_RETRYABLE: 409,
  MANIFEST_LOCKED: 409,
  PLAN_CHANGED: 409,
  STRATEGY_NOT_APPLICABLE: 409,
  JOURNAL_TAMPERED: 409,
  ROW_NOT_EDITABLE: 409,
  ILLEGAL_TRANSITION: 409,
  CATEGORY_EXISTS: 409,
  CATEGORY_BUILT_IN: 409,
  REVISION_MISMATCH: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  FLOW_INVALID: 422,
  TEMPLATE_INVALID: 422,
  PARAMS_INVALID: 422,
  PARAM_LOOKS_LIKE_OPTION: 422,
  RESUME_KIND_NOT_ALLOWED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  OTP_UNAVAILABLE: 422,
  INPUT_INVALID: 422,
  REQUEST_INVALID: 422,
  REGEX_INVALID: 422,
  UNKNOWN_GROUP: 422,
  UNKNOWN_FILTER_VALUE: 422,
  UNKNOWN_QUERY_FIELD: 422,
  INVALID_SELECTION: 422,
  JOB_LIMIT_EXCEEDED: 422,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  KEY_INVALID: 500,
  BROWSER_UNAVAILABLE: 503,
  BROWSER_CRASHED: 503,
  BROWSER_BUSY: 503,
  DATABASE_BUSY: 503,
  WRITE_INSIDE_WRITER: 500,
  // Sessions and computer use.
  START_URL_INVALID: 400,
  SCREENSHOT_INVALID: 400,
  CU_SESSION_NOT_FOUND: 404,
  ACTION_NOT_FOUND: 404,
  SESSION_NOT_ACTIVE: 409,
  CONFIRMATION_REQUIRED: 409,
  ACTION_REJECTED: 409,
  ACTION_ALREADY_DECIDED: 409,
  PREVIEW_STALE: 409,
  SCREENSHOT_TOO_LARGE: 413,
  START_URL_UNREACHABLE: 422,
  START_URL_DENIED: 422,
  INSTRUCTION_NOT_UNDERSTOOD: 422,
  PLANNER_UNAVAILABLE: 422,
  PLANNER_FAILED: 502,
  SIGNATURE_INVALID: 401,
  SIGNATURE_ALGORITHM_UNSUPPORTED: 400,
  INTEGRATION_NOT_CONFIGURED: 503,
  COMPARISON_NOT_CONFIGURED: 404,
  UPSTREAM_FAILED: 502,
  UPSTREAM_TIMEOUT: 504,
  EMBEDDINGS_BUSY: 503,
  EMBEDDINGS_UNAVAILABLE: 503,
  MODEL_UNKNOWN: 422,
  // The automation command lane.
  COMMAND_NOT_FOUND: 404,
  TASK_NOT_FOUND: 404,
  TASK_FINISHED: 409,
  QUEUE_FULL: 429,
  COMMANDS_FILE_INVALID: 500,
  // Template lifecycle and recovery plans.
  RUN_NOT_PROMOTABLE: 409,
  TEMPLATE_STATUS_CONFLICT: 409,
  RUN_NOT_RECOVERABLE: 409,
  // The health lane.
  RATE_LIMITED: 429,
  TELEMETRY_INVALID: 422,
  CAMPAIGN_NOT_FOUND: 404,
  // Signed webhooks.
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_DELIVERY_NOT_FOUND: 404,
  WEBHOOK_URL_DENIED: 422,
  // Profiles and reconstruction.
  ARTIFACT_NOT_FOUND: 404,
  ARTIFACT_TOO_LARGE: 413,
  HAR_INVALID: 422,
  PREVIEW_NOT_FOUND: 404,
  PREVIEW_EXPIRED: 410,
};

/** The HTTP status an error code is answered with. */
export function statusForCode(code: ErrorCode): ContentfulStatusCode {
  return STATUS_FOR_CODE[code];
}

/** The error envelope every failing response carries. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().meta({ description: "Stable SCREAMING_SNAKE code", example: "VALIDATION_FAILED" }),
      message: z.string().meta({ description: "What went wrong and what to do about it" }),
      details: z.unknown().optional(),
      request_id: z.string(),
    }),
  })
  .meta({ id: "ErrorEnvelope" });
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

interface Described {
  code: ErrorCode;
  message: string;
  details?: unknown;
  headers?: Record<string, string>;
}

/** Turns anything thrown into a code, a message and details; unknown errors say nothing of their insides. */
export function describeError(err: unknown): Described | undefined {
  // Another process holding the write lock past the busy timeout, however deep Drizzle wrapped it.
  const busy = findBusyError(err);
  if (busy !== undefined) {
    return {
      code: busy.code,
      message: busy.message,
      details: busy.details,
      headers: { "Retry-After": String(busy.retryAfterSeconds) },
    };
  }
  if (err instanceof ServerError) {
    return {
      code: err.code,
      message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      ...(err.headers === undefined ? {} : { headers: err.headers }),
    };
  }
  if (
    err instanceof RunsError ||
    err instanceof ReviewError ||
    err instanceof FileorgError ||
    err instanceof StoreError ||
    err instanceof ComparisonError
  ) {
    return {
      code: err.code,
      message: err.message,
      ...(err.details === undefined ? {} : { details: err.details }),
      ...(err instanceof QueueFullError ||
      err instanceof EmbeddingsBusyError ||
      err instanceof BrowserBusyError
        ? { headers: { "Retry-After": String(err.retryAfterS) } }
        : {}),
    };
  }
  if (err instanceof HTTPException) {
    if (err.status === 400 && /json/i.test(err.message)) {
      return { code: "INVALID_JSON", message: "The request body is not valid JSON." };
    }
    if (err.status === 413) return { code: "PAYLOAD_TOO_LARGE", message: "The request body is too large." };
    if (err.status === 401) return { code: "UNAUTHORIZED", message: err.message || "Unauthorized." };
    if (err.status < 500) return { code: "BAD_REQUEST", message: err.message || "Bad request." };
  }
  return undefined;
}

/** Builds the JSON error response for `err`; unexpected errors are logged and answered with a bare 500. */
export function errorResponse(c: Context, err: unknown, log: (msg: string, err: unknown) => void): Response {
  const requestId = c.get("requestId") ?? "unknown";
  const described = describeError(err);
  if (described === undefined) {
    log(`unhandled error in ${c.req.method} ${c.req.path} (request ${requestId})`, err);
    return envelope(c, { code: "INTERNAL_ERROR", message: "Internal server error." }, requestId);
  }
  return envelope(c, described, requestId);
}

function envelope(c: Context, d: Described, requestId: string): Response {
  const body: ErrorEnvelope = {
    error: {
      code: d.code,
      message: d.message,
      ...(d.details === undefined ? {} : { details: d.details }),
      request_id: requestId,
    },
  };
  return c.json(body, statusForCode(d.code), d.headers);
}
