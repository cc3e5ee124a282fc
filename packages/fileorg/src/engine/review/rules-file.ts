import { categoriesOfRule } from "../../domain/categories.js";
import type { Actor } from "../../domain/job.js";
import type { ReviewRule } from "../../domain/review-rule.js";
import { rankByLocation } from "../../domain/rule-locations.js";
import { checkRulesFile } from "../../domain/rules-file-check.js";
import { type RulesFileOutcome, summarizeRulesFile } from "../../domain/rules-file-outcome.js";
import { RulesFileError } from "../../errors.js";
import { assertKnownCategories } from "../categories.js";
import { requireManifestJob } from "../manifest/index.js";
import type { ReviewResources } from "./resources.js";
import type { RevisionOptions } from "./revision-guard.js";
import { applyPlanned, locationBaseOf, planRuleSet } from "./rules.js";

/**
 * A rules file over a job's manifest: simulated (what each rule would change, nothing written) or run (the
 * rule engine's one atomic, audited patch batch — the path of the API's rule apply). Rules change the plan
 * only; nothing moves until the plan is applied.
 */

/**
 * The rules of a rules file's text (in the file's order, and where each one is), or RULES_FILE_SYNTAX /
 * RULES_FILE_INVALID naming every problem.
 */
async function rulesOf(res: ReviewResources, text: string) {
  const checked = checkRulesFile(text);
  if (!checked.ok) throw new RulesFileError(checked.issues);
  // A rule may set or test any known category, built in or custom (CATEGORY_UNKNOWN otherwise).
  await assertKnownCategories(res.db, checked.rules.flatMap(categoriesOfRule));
  return { rules: checked.rules, sources: checked.sources };
}

/** The rules in the order they apply to the job's rows: the most specific location's first. */
async function rankedFor(res: ReviewResources, jobId: string, rules: readonly ReviewRule[]) {
  const job = await requireManifestJob(res.db, jobId);
  return rankByLocation(rules, locationBaseOf(job));
}

/** What the rules of a rules file would change in a job's manifest, rule by rule; writes nothing. */
export async function simulateRulesFile(
  res: ReviewResources,
  jobId: string,
  text: string,
): Promise<RulesFileOutcome> {
  const { rules, sources } = await rulesOf(res, text);
  const { job, planned, records } = await planRuleSet(res, jobId, await rankedFor(res, jobId, rules));
  return summarizeRulesFile({
    jobId,
    applied: false,
    revision: job.revision ?? 0,
    rules,
    sources,
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
  const { rules, sources } = await rulesOf(res, text);
  const { job, planned, records } = await planRuleSet(res, jobId, await rankedFor(res, jobId, rules));
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
    sources,
    matches: applied.matches,
    sourcePathOf: (id) => records.get(id)?.sourcePath ?? "",
  });
}
