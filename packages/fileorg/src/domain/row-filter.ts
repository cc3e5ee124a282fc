import { z } from "zod";
import { BUCKET_REASON_CODES } from "./review-bucket.js";
import { REVIEW_REASON_LABELS } from "./review-priority.js";

/**
 * What a filter over manifest rows may name: the reason codes review knows (every code with a label, and the
 * bucket function's own), and the checks of a saved view that need more than its shape (its category among
 * the known ones). Pure.
 */

/** Every reason code a filter may name: the labelled codes and the bucket function's own, sorted. */
export const KNOWN_REASON_CODES: readonly [string, ...string[]] = (() => {
  const codes = [...new Set([...Object.keys(REVIEW_REASON_LABELS), ...BUCKET_REASON_CODES])].sort();
  const [first, ...rest] = codes;
  return [first ?? "BLOCKED", ...rest];
})();

/** Whether `code` is a reason code a filter may name. */
export function isKnownReason(code: string): boolean {
  return KNOWN_REASON_CODES.includes(code);
}

/** A reason code in a filter; an unknown one is refused with the list of known codes. */
export const ReasonCode = z.enum(KNOWN_REASON_CODES, {
  error: (issue) =>
    `unknown reason ${JSON.stringify(issue.input)}; use one of ${KNOWN_REASON_CODES.join(", ")}`,
});

/** One problem found in a filter or a saved view: where (a JSON Pointer) and what to do. */
export interface FilterIssue {
  pointer: string;
  message: string;
}

/**
 * The problem with a category a filter names, or `undefined` when it is known. `knownCategories` is the
 * list of categories a person may use (the built-in ones, and custom ones where they exist).
 */
export function categoryIssue(
  category: string | undefined,
  knownCategories: readonly string[],
  pointer: string,
): FilterIssue | undefined {
  if (category === undefined || knownCategories.includes(category)) return undefined;
  return {
    pointer,
    message: `unknown category ${JSON.stringify(category)}; use one of ${knownCategories.join(", ")}`,
  };
}

/** The checks of a saved view beyond its shape: its filter's category must be a known one. */
export function checkViewFilter(
  view: { filter: { category?: string | undefined } },
  knownCategories: readonly string[],
): FilterIssue[] {
  const issue = categoryIssue(view.filter.category, knownCategories, "/filter/category");
  return issue === undefined ? [] : [issue];
}

/**
 * A strict object schema whose unknown keys are refused with the list of fields it accepts (zod's own
 * message names only the unknown key).
 */
export function strictFields<S extends z.ZodRawShape>(shape: S, what: string) {
  const allowed = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `unknown ${what} field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}; use ${allowed}`
        : undefined,
  });
}
