import { z } from "zod";
import {
  FILE_ISSUE_CODES,
  type Issue,
  LINT_ISSUE_CODES,
  SCHEMA_ISSUE_CODES,
  type TextIssue,
} from "./issues.js";
import { lint } from "./lint.js";
import { locateIssues, sortIssuesByPosition, validateText } from "./text.js";
import { validate } from "./validate.js";

/** One issue as the HTTP contract answers it; `line` and `column` are present when a text was checked. */
export const ComparisonIssue = z
  .object({
    code: z.enum([...SCHEMA_ISSUE_CODES, ...LINT_ISSUE_CODES, ...FILE_ISSUE_CODES]),
    severity: z.enum(["error", "warning"]),
    pointer: z.string().meta({ description: "RFC 6901 JSON Pointer", example: "/comparisons/3/status" }),
    message: z.string(),
    params: z.record(z.string(), z.unknown()),
    line: z.int().min(1).optional(),
    column: z.int().min(1).optional(),
  })
  .meta({ id: "ComparisonIssue" });
/** One issue as the HTTP contract answers it. */
export type ComparisonIssue = z.infer<typeof ComparisonIssue>;

/** What to check: a parsed `document`, or its JSON `text` (then issues carry lines and columns). */
export const CheckComparisonInput = z
  .object({
    document: z.unknown().optional().meta({ description: "The comparison document as JSON" }),
    text: z.string().optional().meta({ description: "The comparison document as JSON text" }),
    lint: z.boolean().default(true).meta({ description: "Run the integrity rules (default true)" }),
    curated_groups: z
      .array(z.string().min(1))
      .default([])
      .meta({ description: "Ids of hand-curated filter groups" }),
  })
  .refine((input) => (input.document === undefined) !== (input.text === undefined), {
    message: "Send exactly one of document or text.",
  })
  .meta({ id: "CheckComparisonInput" });
/** What to check. */
export type CheckComparisonInput = z.input<typeof CheckComparisonInput>;

/** The outcome of {@link checkComparison}. */
export const ComparisonCheck = z
  .object({
    ok: z.boolean().meta({ description: "Valid against the schema and no error-level lint issue" }),
    valid: z.boolean().meta({ description: "Valid against the schema" }),
    issues: z.array(ComparisonIssue).meta({ description: "Schema issues, in document order" }),
    lint_issues: z
      .array(ComparisonIssue)
      .meta({ description: "Lint issues (only for a valid document; sorted by position for a text)" }),
    errors: z.int(),
    warnings: z.int(),
  })
  .meta({ id: "ComparisonCheck" });
/** The outcome of {@link checkComparison}. */
export type ComparisonCheck = z.infer<typeof ComparisonCheck>;

function plain(issue: Issue | TextIssue): ComparisonIssue {
  const { code, severity, pointer, message, params } = issue;
  const position = "line" in issue ? { line: issue.line, column: issue.column } : {};
  return { code, severity, pointer, message, params, ...position };
}

/**
 * Validates a document (parsed or as text) and, when it is valid, lints it: one call answering the
 * schema issues, the lint issues and their totals, in the HTTP contract's shape.
 */
export function checkComparison(input: CheckComparisonInput): ComparisonCheck {
  const runLint = input.lint ?? true;
  const options = { curatedGroups: input.curated_groups ?? [] };
  let issues: ComparisonIssue[] = [];
  let lintIssues: ComparisonIssue[] = [];
  if (input.text !== undefined) {
    const result = validateText(input.text);
    if (!result.ok) issues = result.issues.map(plain);
    else if (runLint) {
      lintIssues = sortIssuesByPosition(locateIssues(input.text, lint(result.value, options))).map(plain);
    }
  } else {
    const result = validate(input.document);
    if (!result.ok) issues = result.issues.map(plain);
    else if (runLint) lintIssues = lint(result.value, options).map(plain);
  }
  const all = [...issues, ...lintIssues];
  const errors = all.filter((issue) => issue.severity === "error").length;
  return {
    ok: errors === 0,
    valid: issues.length === 0,
    issues,
    lint_issues: lintIssues,
    errors,
    warnings: all.length - errors,
  };
}
