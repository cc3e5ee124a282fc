import { collectIssues, IssueCollector } from "./issue-walk.js";
import type { Issue, ValidationResult } from "./issues.js";
import { isFilterGroup, isRow, isValidHeader } from "./quick-check.js";
import type { ComparisonDocument } from "./schema.js";
import { FILTER_GROUP_SPEC, ROW_SPEC } from "./shape.js";

/*
 * Two layers. `isRow` / `isFilterGroup` / `isFilterValue` (./quick-check.ts) are hand-written checks that
 * only answer yes/no and allocate nothing: they are what a valid document costs. Each element they reject
 * is walked by `IssueCollector` (./issue-walk.ts), driven by the shape table, which reports every issue
 * with its place and message (worded by ./issue-text.ts). The walk is authoritative: a quick check may
 * only be stricter, never looser (the Ajv cross-check test holds both to the schema).
 */

/**
 * Validates a parsed JSON value as a comparison document and reports **all** schema issues in one pass.
 * The value is returned as is (not copied) when it is valid. Input is expected to be JSON data: plain
 * objects, arrays, strings, numbers, booleans and null.
 */
export function validate(input: unknown): ValidationResult<ComparisonDocument> {
  if (!isValidHeader(input)) return resultOf(input, collectIssues(input));
  // One pass: each group and row gets the allocation-free check; only those failing it are walked.
  let collector: IssueCollector | undefined;
  const { filters, comparisons } = input;
  for (let i = 0; i < filters.length; i++) {
    if (isFilterGroup(filters[i])) continue;
    collector ??= new IssueCollector();
    collector.object(filters[i], FILTER_GROUP_SPEC, `/filters/${i}`);
  }
  for (let i = 0; i < comparisons.length; i++) {
    if (isRow(comparisons[i])) continue;
    collector ??= new IssueCollector();
    collector.object(comparisons[i], ROW_SPEC, `/comparisons/${i}`);
  }
  return resultOf(input, collector?.issues ?? []);
}

function resultOf(input: unknown, issues: Issue[]): ValidationResult<ComparisonDocument> {
  return issues.length === 0 ? { ok: true, value: input as ComparisonDocument } : { ok: false, issues };
}
