/** Every code a fileorg error can carry. */
export const FILEORG_ERROR_CODES = [
  "JOB_NOT_FOUND",
  "ROW_NOT_FOUND",
  "CONFLICT_NOT_FOUND",
  "SOURCE_NOT_FOUND",
  "NOT_A_DIRECTORY",
  "PATH_OUTSIDE_ROOT",
  "PATH_PROTECTED",
  "INVALID_TEMPLATE",
  "INVALID_TARGET_PATH",
  "WRONG_JOB_KIND",
  "JOB_NOT_READY",
  "JOB_BUSY",
  "JOB_NOT_RETRYABLE",
  "MANIFEST_LOCKED",
  "REVISION_MISMATCH",
  "PLAN_CHANGED",
  "STRATEGY_NOT_APPLICABLE",
  "JOURNAL_TAMPERED",
  "ROW_NOT_EDITABLE",
  "ILLEGAL_TRANSITION",
  "CATEGORY_UNKNOWN",
  "CATEGORY_EXISTS",
  "CATEGORY_NOT_FOUND",
  "CATEGORY_BUILT_IN",
  "JOB_LIMIT_EXCEEDED",
  "PATH_NOT_ABSOLUTE",
  "UNKNOWN_ROW_IDS",
  "UNIT_KEPT_WHOLE",
  "UNIT_NOT_FOUND",
  "NOT_IN_DUPLICATE_GROUP",
  "CONFLICT_NOT_OPEN",
  "RULES_FILE_SYNTAX",
  "RULES_FILE_INVALID",
  "PREVIEW_UNAVAILABLE",
  "NOT_PREVIEWABLE",
  "PREVIEW_FAILED",
  "FILE_MISSING",
  "FILE_UNREADABLE",
] as const;

/** A stable SCREAMING_SNAKE error code of `@vetted/fileorg`. */
export type FileorgErrorCode = (typeof FILEORG_ERROR_CODES)[number];

/** The one error class `@vetted/fileorg` throws for broken preconditions; `code` is stable. */
export class FileorgError extends Error {
  override readonly name: string = "FileorgError";
  constructor(
    readonly code: FileorgErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** A job, row or conflict that does not exist. */
export class NotFoundError extends FileorgError {
  override readonly name = "NotFoundError";
}

/** A path outside the allowed roots (after resolving `..` and symlinks). */
export class PathOutsideRootError extends FileorgError {
  override readonly name = "PathOutsideRootError";
  constructor(path: string, roots: readonly string[]) {
    super("PATH_OUTSIDE_ROOT", `The path ${path} is outside the allowed roots.`, { path, roots });
  }
}

/** An action on a job whose kind or state does not allow it. */
export class JobStateError extends FileorgError {
  override readonly name = "JobStateError";
}

/** A job, row or conflict asked to move to a status its transition table does not allow from where it is. */
export class IllegalTransitionError extends FileorgError {
  override readonly name = "IllegalTransitionError";
  constructor(machine: "job" | "row" | "conflict", from: string, to: string, subject?: string) {
    super(
      "ILLEGAL_TRANSITION",
      `A ${machine}${subject === undefined ? "" : ` (${subject})`} cannot move from ${from} to ${to}.`,
      { machine, from, to, ...(subject === undefined ? {} : { subject }) },
    );
  }
}

/** A rules file that cannot be read (`RULES_FILE_SYNTAX`) or is not a valid rules file (`RULES_FILE_INVALID`). */
export class RulesFileError extends FileorgError {
  override readonly name = "RulesFileError";
  constructor(issues: ReadonlyArray<{ code: "RULES_FILE_SYNTAX" | "RULES_FILE_INVALID"; message: string }>) {
    const first = issues[0];
    const code = first?.code ?? "RULES_FILE_INVALID";
    super(
      code,
      `The rules file is not valid (${issues.length} problem${issues.length === 1 ? "" : "s"}): ${first?.message ?? ""}`,
      { issues },
    );
  }
}
