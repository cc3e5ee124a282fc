import { ComparisonError, type ComparisonErrorCode } from "@vetted/comparison";
import { FileorgError, type FileorgErrorCode, ReviewError, type ReviewErrorCode } from "@vetted/fileorg";
import { RunsError, type RunsErrorCode } from "@vetted/runs";
import { StoreError, type StoreErrorCode } from "@vetted/store";
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

/** The one HTTP status for each error code: the only place codes become statuses. */
export function statusForCode(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "BAD_REQUEST":
    case "INVALID_JSON":
    case "VALIDATION_FAILED":
    case "PREFERENCE_INVALID":
      return 400;
    case "UNAUTHORIZED":
      return 401;
    case "FORBIDDEN_HOST":
    case "FORBIDDEN_ORIGIN":
      return 403;
    case "NOT_FOUND":
    case "FLOW_NOT_FOUND":
    case "TEMPLATE_NOT_FOUND":
    case "RUN_NOT_FOUND":
    case "PREFERENCE_NOT_FOUND":
    case "REVIEW_RULE_NOT_FOUND":
    case "WATCH_SOURCE_NOT_FOUND":
    case "LEARNED_RULE_NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "PREFERENCE_NAME_TAKEN":
    case "BATCH_CHANGED":
    case "INBOX_EMPTY":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "UNSUPPORTED_MEDIA_TYPE":
      return 415;
    case "VERSION_MISMATCH":
    case "RUN_NOT_WAITING":
    case "RUN_FINISHED":
      return 409;
    case "FLOW_INVALID":
    case "TEMPLATE_INVALID":
    case "PARAMS_INVALID":
    case "RESUME_KIND_NOT_ALLOWED":
    case "IDEMPOTENCY_KEY_REUSED":
    case "OTP_UNAVAILABLE":
    case "INPUT_INVALID":
    case "REQUEST_INVALID":
      return 422;
    case "INTERNAL_ERROR":
      return 500;
    case "NOT_A_DIRECTORY":
    case "INVALID_TEMPLATE":
    case "INVALID_TARGET_PATH":
      return 400;
    case "PATH_OUTSIDE_ROOT":
      return 403;
    case "JOB_NOT_FOUND":
    case "ROW_NOT_FOUND":
    case "CONFLICT_NOT_FOUND":
    case "SOURCE_NOT_FOUND":
      return 404;
    case "WRONG_JOB_KIND":
    case "JOB_NOT_READY":
    case "JOB_BUSY":
    case "JOB_NOT_RETRYABLE":
    case "MANIFEST_LOCKED":
    case "PLAN_CHANGED":
    case "STRATEGY_NOT_APPLICABLE":
    case "JOURNAL_TAMPERED":
    case "ROW_NOT_EDITABLE":
    case "ILLEGAL_TRANSITION":
      return 409;
    case "REVISION_MISMATCH":
      return 412;
    case "NESTING_TOO_DEEP":
    case "CURSOR_INVALID":
      return 400;
    case "REQUEST_TIMEOUT":
      return 408;
    case "REQUEST_HEADER_FIELDS_TOO_LARGE":
      return 431;
    case "REGEX_INVALID":
      return 422;
    case "KEY_INVALID":
      return 500;
    case "UNKNOWN_GROUP":
    case "UNKNOWN_FILTER_VALUE":
    case "UNKNOWN_QUERY_FIELD":
    case "INVALID_SELECTION":
      return 422;
  }
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
