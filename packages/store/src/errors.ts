/** Stable codes of the errors `@vetted/store` throws. */
export type StoreErrorCode = "NESTING_TOO_DEEP" | "REGEX_INVALID" | "KEY_INVALID" | "CURSOR_INVALID";

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
