/** How serious an issue is. Schema issues are always errors; lint rules have configurable severities. */
export type Severity = "error" | "warning";

/** Codes of the schema issues `validate` and `validateText` report. */
export const SCHEMA_ISSUE_CODES = [
  "INVALID_JSON",
  "NESTING_TOO_DEEP",
  "INVALID_TYPE",
  "MISSING_FIELD",
  "UNKNOWN_KEY",
  "INVALID_ENUM",
  "EMPTY_STRING",
  "NOT_INTEGER",
  "OUT_OF_RANGE",
  "DUPLICATE_KEY",
] as const;
/** A schema issue code. */
export type SchemaIssueCode = (typeof SCHEMA_ISSUE_CODES)[number];

/** Codes of the integrity rules `lint` checks (pure, run anywhere). */
export const LINT_ISSUE_CODES = [
  "DUPLICATE_ROW_ID",
  "DUPLICATE_FILTER_ID",
  "DUPLICATE_VALUE_ID",
  "UNKNOWN_ROW_REFERENCE",
  "UNKNOWN_COMPARE_AGAINST",
  "SELF_COMPARISON",
  "UNKNOWN_FILTER_FIELD",
  "FILTER_FIELD_NOT_SCALAR",
  "FILTER_VALUE_MISMATCH",
  "FILTER_VALUE_NOT_DERIVED",
] as const;
/** A lint rule code. */
export type LintIssueCode = (typeof LINT_ISSUE_CODES)[number];

/** Codes of the opt-in, Node-only file rules (`@vetted/comparison/node`). */
export const FILE_ISSUE_CODES = ["MISSING_DOC_FILE", "MISSING_PACK_PATH"] as const;
/** A file rule code. */
export type FileIssueCode = (typeof FILE_ISSUE_CODES)[number];

/** Every issue code the package reports. */
export type IssueCode = SchemaIssueCode | LintIssueCode | FileIssueCode;

/** A value carried in an issue's `params`. */
export type IssueParam = string | number | boolean | readonly string[];

/** One thing wrong with a document, with a stable code and a place. */
export interface Issue {
  /** Stable SCREAMING_SNAKE code; see the README for the list. */
  readonly code: IssueCode;
  readonly severity: Severity;
  /** RFC 6901 JSON Pointer to the offending value (for a missing field: where it should be). */
  readonly pointer: string;
  /** What is wrong and what to do about it. */
  readonly message: string;
  /** The facts behind the message (the key, the allowed values...), for tools. */
  readonly params: Readonly<Record<string, IssueParam>>;
}

/** An issue located in a text: 1-based line and column (UTF-16 code units). */
export interface TextIssue extends Issue {
  readonly line: number;
  readonly column: number;
  /** The file the text came from, when the caller named it. */
  readonly file?: string;
}

/** The outcome of validating a document: the typed value, or every issue found. */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly Issue[] };

/** Escapes one JSON Pointer reference token (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  return token.includes("~") || token.includes("/") ? token.replace(/~/g, "~0").replace(/\//g, "~1") : token;
}

/** Splits an RFC 6901 JSON Pointer into its unescaped reference tokens. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}
