import { categoriesOfRule } from "../../domain/categories.js";
import type { Actor } from "../../domain/job.js";
import type { ReviewRule } from "../../domain/review-rule.js";
import { loadRulesFile } from "../../domain/rules-file-check.js";
import { type RulesFileOutcome, summarizeRulesFile } from "../../domain/rules-file-outcome.js";
import { assertKnownCategories } from "../categories.js";
import type { ReviewResources } from "./resources.js";
import type { RevisionOptions } from "./revision-guard.js";
import { applyPlanned, planRuleSet } from "./rules.js";

/**
 * A rules file over a job's manifest: simulated (what each rule would change, nothing written) or run (the
 * rule engine's one atomic, audited patch batch — the path of the API's rule apply). Rules change the plan
 * only; nothing moves until the plan is applied.
 */

/** The rules of a rules file's text, or RULES_FILE_SYNTAX / RULES_FILE_INVALID naming every problem. */
async function rulesOf(res: ReviewResources, text: string): Promise<ReviewRule[]> {
  const rules = loadRulesFile(text);
  // A rule may set or test any known category, built in or custom (CATEGORY_UNKNOWN otherwise).
  await assertKnownCategories(res.db, rules.flatMap(categoriesOfRule));
  return rules;
}

/** What the rules of a rules file would change in a job's manifest, rule by rule; writes nothing. */
export async function simulateRulesFile(
  res: ReviewResources,
  jobId: string,
  text: string,
): Promise<RulesFileOutcome> {
  const rules = await rulesOf(res, text);
  const { job, planned, records } = await planRuleSet(res, jobId, rules);
  return summarizeRulesFile({
    jobId,
    applied: false,
    revision: job.revision ?? 0,
    rules,
    matches: planned,
    sourcePathOf: (id) => records.get(id)?.sourcePath ?? "",
  });
}

/**
 * Applies the rules of a rules file to a job's manifest as one atomic, audited revision (all rules or
 * none); answers what each rule changed. `options.expectedRevision` refuses a stale manifest.
 */
export async function runRulesFile(
  res: ReviewResources,
  jobId: string,
  text: string,
  actor: Actor,
  options: RevisionOptions = {},
): Promise<RulesFileOutcome> {
  const rules = await rulesOf(res, text);
  const { job, planned, records } = await planRuleSet(res, jobId, rules);
  const applied = await applyPlanned(res, job, planned, actor, options, {
    action: "review.rules_file_apply",
    subject: `rules file (${rules.length} rules)`,
    after: { rules },
  });
  return summarizeRulesFile({
    jobId,
    applied: true,
    revision: applied.revision,
    rules,
    matches: applied.matches,
    sourcePathOf: (id) => records.get(id)?.sourcePath ?? "",
  });
}
