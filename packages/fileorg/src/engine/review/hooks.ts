import type { InboxFile } from "../../domain/inbox-batch.js";
import type { Actor, Job } from "../../domain/job.js";
import { boostConfidence, suggestFor } from "../../domain/learned-signals.js";
import { REVIEW_MARKERS } from "../../domain/review-bucket.js";
import { findStrategyPack } from "../../domain/strategy-packs.js";
import type { RowAdjuster } from "../analyze/rows.js";
import type { Stored } from "../preferences/index.js";
import type { JobRecord } from "../records.js";
import type { FileorgHooks } from "../resources.js";
import { analyzeParamsOf, analyzeRulesOf } from "./analyze-rules.js";
import { learnedIndex, recordEdits } from "./learning.js";
import type { ReviewResources, ReviewShared } from "./resources.js";

/**
 * Review's hooks, for the core engine's construction: learning from a person's edits, analyze parameters
 * from the preferences (strategy pack, template, output root), the strategy pack's and the saved rules at
 * analyze, and learned suggestions on new rows.
 */
export function reviewHooks(res: ReviewShared): FileorgHooks {
  const { preferences } = res;
  return {
    onRowsEdited: (event) => recordEdits(res, event),
    analyzeParams: async () =>
      analyzeParamsOf(await preferences.runtimeSettings(), await preferences.activeStrategyPack()),
    analyzeRules: analyzeRulesOf(res),
    analyzeAdjuster: (job) => learnedAdjuster(res, job),
  };
}

/** How new rows of `job` are adjusted by what was learned; `undefined` when nothing was. */
async function learnedAdjuster(res: ReviewShared, job: JobRecord): Promise<RowAdjuster | undefined> {
  const index = await learnedIndex(res);
  if (index.bySignal.size === 0) return undefined;
  const outputDir = String(job.params.output_dir ?? "");
  return (row) => {
    const suggestions = suggestFor(
      { source_path: row.sourcePath, mime: row.mime, category: row.category, target_path: row.targetPath },
      index,
      outputDir,
      res.learning,
    );
    if (suggestions.length === 0) return undefined;
    const disagrees = suggestions.some((s) => !s.agrees);
    return {
      confidence: boostConfidence(row.confidence, suggestions),
      reasonCodes: disagrees ? [REVIEW_MARKERS.learnedDisagrees] : [REVIEW_MARKERS.learnedAgrees],
    };
  };
}

/**
 * Starts an analyze job over exactly an inbox batch: the watch source's strategy pack gives the naming
 * template and the confidence threshold; the output root is the runtime default or the watched folder.
 */
export async function analyzeInboxFiles(
  res: ReviewResources,
  source: Stored<"watch-sources">,
  files: readonly InboxFile[],
  actor: Actor = { actor: "local" },
): Promise<Job> {
  const runtime = await res.preferences.runtimeSettings();
  const pack =
    findStrategyPack(source.strategy_pack_id ?? runtime.active_strategy_pack) ??
    (await res.preferences.activeStrategyPack());
  return res.fileorg.analyzeFiles(
    {
      source_dir: source.path,
      ...(runtime.default_output_root === null ? {} : { output_dir: runtime.default_output_root }),
      naming_template: pack.naming_template,
      files: files.map((f) => f.path),
      confidence_threshold: pack.confidence_threshold,
      strategy_pack_id: pack.id,
    },
    actor,
  );
}
