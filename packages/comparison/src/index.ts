/**
 * The starter-pack comparison document: its zod schema (the source of truth of the types and of the
 * shipped JSON Schema files), a validator reporting every issue with a JSON Pointer (and a line and
 * column from text), integrity lint, and filter/facet queries. Pure: no Node imports; Node-only parts
 * live in `@vetted/comparison/node`, the browser validator in `@vetted/comparison/browser`.
 *
 * @module @vetted/comparison
 */

export { CheckComparisonInput, ComparisonCheck, ComparisonIssue, checkComparison } from "./domain/check.js";
export { MAX_DOCUMENT_DEPTH } from "./domain/depth.js";
export type {
  FileIssueCode,
  Issue,
  IssueCode,
  IssueParam,
  LintIssueCode,
  SchemaIssueCode,
  Severity,
  TextIssue,
  ValidationResult,
} from "./domain/issues.js";
export { FILE_ISSUE_CODES, LINT_ISSUE_CODES, SCHEMA_ISSUE_CODES } from "./domain/issues.js";
export type { SchemaDraft } from "./domain/json-schema.js";
export {
  renderJsonSchema,
  renderJsonSchemaText,
  SCHEMA_DRAFTS,
  SCHEMA_FILES,
  SCHEMA_IDS,
} from "./domain/json-schema.js";
export type { LintOptions, RuleSeverity } from "./domain/lint.js";
export { DEFAULT_LINT_SEVERITIES, lint, SCALAR_ROW_FIELDS } from "./domain/lint.js";
export type {
  Facet,
  FacetValue,
  ResolvedGroup,
  ScalarRowField,
  Selection,
  WhereClause,
} from "./domain/query.js";
export { facets, group, query } from "./domain/query.js";
export { ComparisonDocument, ComparisonRow, FilterGroup, FilterValue } from "./domain/schema.js";
export type { TextValidationResult } from "./domain/text.js";
export { locateIssues, sortIssuesByPosition, validateText } from "./domain/text.js";
export { validate } from "./domain/validate.js";
export type { FirstSuccessMode, HostFamily, RowStatus, StarterKind } from "./domain/vocabulary.js";
export { FIRST_SUCCESS_MODES, HOST_FAMILIES, ROW_STATUSES, STARTER_KINDS } from "./domain/vocabulary.js";
export type { ComparisonErrorCode } from "./errors.js";
export {
  COMPARISON_ERROR_CODES,
  ComparisonError,
  UnknownCuratedGroupError,
  UnknownFilterValueError,
  UnknownGroupError,
  UnknownQueryFieldError,
} from "./errors.js";
