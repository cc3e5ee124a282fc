/** Codes of the errors the package throws for broken preconditions (a wrong query, an unknown group). */
export const COMPARISON_ERROR_CODES = [
  "UNKNOWN_GROUP",
  "UNKNOWN_FILTER_VALUE",
  "UNKNOWN_QUERY_FIELD",
  "INVALID_SELECTION",
] as const;
/** A comparison error code. */
export type ComparisonErrorCode = (typeof COMPARISON_ERROR_CODES)[number];

/** The base error of `@vetted/comparison`. Issues of a document are values, never thrown. */
export class ComparisonError extends Error {
  override readonly name: string = "ComparisonError";
  constructor(
    readonly code: ComparisonErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** A filter group id that the document does not define. */
export class UnknownGroupError extends ComparisonError {
  override readonly name = "UnknownGroupError";
  constructor(id: string, known: readonly string[]) {
    super(
      "UNKNOWN_GROUP",
      `There is no filter group "${id}"; known groups: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
      { id, known },
    );
  }
}

/**
 * A hand-curated group id (lint option `curatedGroups`) that the document does not define: a typo would
 * otherwise leave the real group un-curated without a word. Same code as any unknown group, plus the
 * closest known id when one is likely meant.
 */
export class UnknownCuratedGroupError extends ComparisonError {
  override readonly name = "UnknownCuratedGroupError";
  constructor(id: string, known: readonly string[], suggestion: string | undefined) {
    const hint = suggestion === undefined ? "." : `; did you mean ${JSON.stringify(suggestion)}?`;
    super(
      "UNKNOWN_GROUP",
      `curatedGroups names "${id}", which is no filter group of this document${hint} Known groups: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
      { id, known, ...(suggestion === undefined ? {} : { suggestion }) },
    );
  }
}

/** A filter value id that its group does not define. */
export class UnknownFilterValueError extends ComparisonError {
  override readonly name = "UnknownFilterValueError";
  constructor(group: string, id: string, known: readonly string[]) {
    super(
      "UNKNOWN_FILTER_VALUE",
      `Filter group "${group}" has no value "${id}"; known values: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
      { group, id, known },
    );
  }
}

/** A `where` field that is not a scalar row field. */
export class UnknownQueryFieldError extends ComparisonError {
  override readonly name = "UnknownQueryFieldError";
  constructor(field: string, known: readonly string[]) {
    super(
      "UNKNOWN_QUERY_FIELD",
      `Rows cannot be filtered on "${field}"; filterable fields: ${known.join(", ")}.`,
      { field, known },
    );
  }
}
