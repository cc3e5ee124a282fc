import type { AppliedRule } from "./manifest.js";
import type { ReviewRule } from "./review-rule.js";

/** One list of rules analyze applies to every new row, and where the list came from. */
export interface AnalyzeRuleGroup {
  source: AppliedRule["source"];
  /** The strategy pack of a pack's `default_rules`. */
  packId?: string | undefined;
  rules: readonly ReviewRule[];
}

/**
 * What analyze applies to every new row besides the classifier: the strategy pack's categories, then its
 * `default_rules`, then the saved review rules (each list in priority order; a later list's changes win).
 */
export interface AnalyzeRuleSet {
  /** The pack's categories: a built-in category outside them is filed as `other`. */
  packCategories?: readonly string[] | undefined;
  packId?: string | undefined;
  groups: readonly AnalyzeRuleGroup[];
}

/** Reason codes analyze adds to a row a pack or a saved rule acted on. */
export const RULE_REASON_CODES = {
  strategy_pack: "PACK_RULE",
  saved_rule: "SAVED_RULE",
  packCategory: "PACK_CATEGORY",
  fileTooLarge: "FILE_TOO_LARGE",
} as const;

/** The job-level limits of an analyze (from the runtime settings); a missing one does not apply. */
export interface AnalyzeLimits {
  max_files_per_job?: number | undefined;
  max_total_bytes?: number | undefined;
  max_file_bytes?: number | undefined;
}

/** The limits an analyze job's parameters carry (anything that is not a positive integer is ignored). */
export function limitsOf(params: Record<string, unknown>): AnalyzeLimits {
  const raw = params.limits;
  if (raw === null || typeof raw !== "object") return {};
  const pick = (key: keyof AnalyzeLimits) => {
    const v = (raw as Record<string, unknown>)[key];
    return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
  };
  return {
    max_files_per_job: pick("max_files_per_job"),
    max_total_bytes: pick("max_total_bytes"),
    max_file_bytes: pick("max_file_bytes"),
  };
}

/** Which job-level limit a running total breaks, if any: files first, then bytes. */
export function brokenJobLimit(
  limits: AnalyzeLimits,
  files: number,
  bytes: number,
): { limit: "max_files_per_job" | "max_total_bytes"; value: number; actual: number } | undefined {
  if (limits.max_files_per_job !== undefined && files > limits.max_files_per_job)
    return { limit: "max_files_per_job", value: limits.max_files_per_job, actual: files };
  if (limits.max_total_bytes !== undefined && bytes > limits.max_total_bytes)
    return { limit: "max_total_bytes", value: limits.max_total_bytes, actual: bytes };
  return undefined;
}

/** The entry a rule leaves in a row's `applied_rules`. */
export function appliedRuleOf(rule: ReviewRule, group: AnalyzeRuleGroup): AppliedRule {
  return {
    rule_id: rule.id ?? rule.name,
    name: rule.name,
    source: group.source,
    ...(group.packId === undefined ? {} : { pack_id: group.packId }),
  };
}
