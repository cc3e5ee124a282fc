import { eq } from "drizzle-orm";
import { DEFAULT_NAMING_TEMPLATE } from "../../domain/job.js";
import type { AnalyzeRuleSet } from "../../domain/pack-rules.js";
import type { RuntimeSettings } from "../../domain/preferences.js";
import { orderRules, ReviewRule } from "../../domain/review-rule.js";
import { findStrategyPack, type StrategyPack } from "../../domain/strategy-packs.js";
import { preferences } from "../../store/review-schema.js";
import type { JobRecord } from "../records.js";
import type { ReviewShared } from "./resources.js";

/** Every enabled saved review rule, in the order they apply (higher priority first). */
export async function savedRules(res: ReviewShared): Promise<ReviewRule[]> {
  return orderRules(await storedRules(res));
}

/** Every saved review rule, enabled or not, in no particular order. */
export async function storedRules(res: ReviewShared): Promise<ReviewRule[]> {
  const stored = await res.db
    .select({ id: preferences.id, data: preferences.data })
    .from(preferences)
    .where(eq(preferences.family, "review-rules"));
  const rules: ReviewRule[] = [];
  for (const s of stored) {
    const parsed = ReviewRule.safeParse({ ...s.data, id: s.id });
    if (parsed.success) rules.push(parsed.data);
  }
  return rules;
}

/** The pack an analyze job was started with (its `strategy_pack_id`), else the active one. */
async function packOf(res: ReviewShared, job: JobRecord): Promise<StrategyPack> {
  const id = job.params.strategy_pack_id;
  return (
    (typeof id === "string" ? findStrategyPack(id) : undefined) ??
    (await res.preferences.activeStrategyPack())
  );
}

/**
 * What analyze applies to each new row: the job's strategy pack (its categories and `default_rules`), then
 * every enabled saved review rule. Registered on the core engine, so manual and inbox analyzes both get it.
 */
export function analyzeRulesOf(res: ReviewShared) {
  return async (job: JobRecord): Promise<AnalyzeRuleSet> => {
    const pack = await packOf(res, job);
    return {
      packId: pack.id,
      packCategories: pack.categories,
      groups: [
        { source: "strategy_pack", packId: pack.id, rules: pack.default_rules },
        { source: "saved_rule", rules: await savedRules(res) },
      ],
    };
  };
}

/**
 * The runtime settings and strategy pack as parameters of a new analyze job: the pack (id, threshold; its
 * naming template unless the settings name another default one), the default output root, the limits,
 * the workers and the allowed roots that narrow the environment's.
 */
export function analyzeParamsOf(runtime: RuntimeSettings, pack: StrategyPack): Record<string, unknown> {
  const template =
    runtime.default_naming_template === DEFAULT_NAMING_TEMPLATE
      ? pack.naming_template
      : runtime.default_naming_template;
  return {
    strategy_pack_id: pack.id,
    confidence_threshold: pack.confidence_threshold,
    naming_template: template,
    ...(runtime.default_output_root === null ? {} : { output_dir: runtime.default_output_root }),
    limits: {
      max_files_per_job: runtime.limits.max_files_per_job,
      max_total_bytes: runtime.limits.max_total_bytes,
      max_file_bytes: runtime.limits.max_file_bytes,
    },
    workers: runtime.workers,
    allowed_roots: runtime.allowed_roots,
  };
}
