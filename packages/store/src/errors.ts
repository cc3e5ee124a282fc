/** Stable codes of the errors `@vetted/store` throws. */
export type StoreErrorCode =
  | "NESTING_TOO_DEEP"
  | "REGEX_INVALID"
  | "KEY_INVALID"
  | "CURSOR_INVALID"
  | "DATABASE_BUSY"
  | "WRITE_INSIDE_WRITER";

/** The one base error of `@vetted/store`: a stable SCREAMING_SNAKE `code` and a message a person can act on. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: StoreErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "StoreError";
    this.code = code;
    this.details = details;
  }
}

/** A JSON value (or JSON text) nests deeper than the allowed limit. */
export class NestingTooDeepError extends StoreError {
  constructor(where: string, limit: number) {
    super("NESTING_TOO_DEEP", `${where} nests deeper than ${limit} levels; flatten it`, { limit });
    this.name = "NestingTooDeepError";
  }
}

/** A user-supplied regular expression cannot be compiled by the linear-time engine. */
export class RegexInvalidError extends StoreError {
  constructor(pattern: string, reason: string) {
    super(
      "REGEX_INVALID",
      `The pattern ${JSON.stringify(pattern.slice(0, 80))} is not accepted: ${reason}. ` +
        "Patterns run in linear time (RE2 syntax): backreferences and lookarounds are not supported.",
      { reason },
    );
    this.name = "RegexInvalidError";
  }
}

/**
 * Another process held the database's write lock for longer than the busy timeout: nothing was written. The
 * same request may be sent again after `retryAfterSeconds`.
 */
export class DatabaseBusyError extends StoreError {
  readonly retryAfterSeconds: number;

  constructor(waitedMs?: number, retryAfterSeconds = 1) {
    const waited = waitedMs === undefined ? "" : ` (waited ${Math.round(waitedMs)} ms)`;
    super(
      "DATABASE_BUSY",
      `The database is busy: another process holds its write lock${waited}. Nothing was changed; ` +
        `try again in ${retryAfterSeconds} s.`,
      {
        ...(waitedMs === undefined ? {} : { waited_ms: Math.round(waitedMs) }),
        retry_after_seconds: retryAfterSeconds,
      },
    );
    this.name = "DatabaseBusyError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A write was sent through the database handle by code that holds the write lock: it would wait on its own
 * transaction. A programming error: write through the transaction handle (`tx`) instead.
 */
export class WriteInsideWriterError extends StoreError {
  constructor(sql: string) {
    super(
      "WRITE_INSIDE_WRITER",
      "A write was sent outside the open transaction by the code holding the write lock; use the transaction " +
        `handle: ${sql.slice(0, 80)}`,
    );
    this.name = "WriteInsideWriterError";
  }
}

/**
 * The {@link DatabaseBusyError} behind `err` (itself, or along its `cause` chain, as Drizzle wraps failed
 * queries), or one standing for SQLite's own "busy" or "locked" error there; undefined for any other error.
 */
export function findBusyError(err: unknown): DatabaseBusyError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof DatabaseBusyError) return e;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^SQLITE_(BUSY|LOCKED)/.test(code)) return new DatabaseBusyError();
  }
  return undefined;
}
