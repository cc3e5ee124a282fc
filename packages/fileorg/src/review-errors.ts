/** Every code the review, preferences and inbox verbs of `@vetted/fileorg` throw. */
export const REVIEW_ERROR_CODES = [
  "PREFERENCE_INVALID",
  "PREFERENCE_NOT_FOUND",
  "PREFERENCE_NAME_TAKEN",
  "REVIEW_RULE_NOT_FOUND",
  "LEARNED_RULE_NOT_FOUND",
  "WATCH_SOURCE_NOT_FOUND",
  "BATCH_CHANGED",
  "INBOX_EMPTY",
  "VIEW_NOT_FOUND",
] as const;
/** A review error code. */
export type ReviewErrorCode = (typeof REVIEW_ERROR_CODES)[number];

/** One field-level problem: a JSON Pointer into the input and what is wrong there. */
export interface FieldIssue {
  pointer: string;
  message: string;
}

/** A broken precondition in review, preferences or the inbox; `code` is stable, `details` is JSON. */
export class ReviewError extends Error {
  override readonly name = "ReviewError";
  constructor(
    readonly code: ReviewErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** An item failed validation; `details.issues` lists each offending field. */
export class PreferenceInvalidError extends ReviewError {
  constructor(
    family: string,
    readonly issues: FieldIssue[],
  ) {
    const first = issues[0];
    super(
      "PREFERENCE_INVALID",
      `The ${family} item is invalid${first === undefined ? "" : ` at ${first.pointer || "/"}: ${first.message}`}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""}.`,
      { issues },
    );
  }
}

/** No item with this id in this family. */
export class PreferenceNotFoundError extends ReviewError {
  constructor(family: string, id: string) {
    super("PREFERENCE_NOT_FOUND", `No ${family} item with id ${JSON.stringify(id)}.`, { family, id });
  }
}
