/**
 * The validator alone, for bundling into a web page: no zod, no JSON parser, no Node imports.
 *
 * @module @vetted/comparison/browser
 */
export type { Issue, IssueCode, IssueParam, Severity, ValidationResult } from "./domain/issues.js";
export type { ComparisonDocument, ComparisonRow, FilterGroup, FilterValue } from "./domain/schema.js";
export { validate } from "./domain/validate.js";
