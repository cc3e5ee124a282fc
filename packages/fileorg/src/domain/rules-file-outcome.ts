import { z } from "zod";
import type { ReviewRule, RowChanges } from "./review-rule.js";
import type { RulesFileRuleSource } from "./rules-file-check.js";

/**
 * What the rules of a rules file do (simulation) or did (run) to a manifest, rule by rule. Pure.
 */

const FieldChange = z.object({ from: z.string(), to: z.string() });

/** One row a rule matched, as shown for an example. */
export const RulesFileExample = z
  .object({
    row_id: z.string(),
    source_path: z.string(),
    changes: z
      .object({
        category: FieldChange.optional(),
        target_path: FieldChange.optional(),
        action: FieldChange.optional(),
        review_bucket: FieldChange.optional(),
      })
      .meta({
        description: "Each field the rules change: from → to (empty: the row matches, nothing changes)",
      }),
  })
  .meta({ id: "RulesFileExample" });
/** One row a rule matched, as shown for an example. */
export type RulesFileExample = z.infer<typeof RulesFileExample>;

/** What one rule of the file does: the rows it matches, how many of them change, a few examples. */
export const RulesFileRuleOutcome = z
  .object({
    name: z.string(),
    line: z.number().int().optional().meta({ description: "The rule's 1-based line in the rules file" }),
    location: z.string().optional().meta({
      description: "The rule's location block (its path as written), when it has one",
    }),
    matched: z.number().int().meta({
      description: "Rows the rule matches (pending or failed rows only: finished rows never change)",
    }),
    changed: z.number().int().meta({
      description:
        "Of those, the rows whose plan changes (by this rule or an earlier one with continue: true)",
    }),
    examples: z
      .array(RulesFileExample)
      .meta({ description: "The first few changed rows (matched rows when none changes), in analyze order" }),
  })
  .meta({ id: "RulesFileRuleOutcome" });
/** What one rule of the file does. */
export type RulesFileRuleOutcome = z.infer<typeof RulesFileRuleOutcome>;

/** What a rules file does (`applied: false`) or did (`applied: true`) to a manifest. */
export const RulesFileOutcome = z
  .object({
    job_id: z.string(),
    applied: z
      .boolean()
      .meta({ description: "false: a simulation, nothing written; true: one revision written" }),
    matched_count: z.number().int().meta({ description: "Rows at least one rule matches" }),
    changed_count: z.number().int().meta({ description: "Rows whose plan changes" }),
    revision: z
      .number()
      .int()
      .meta({ description: "The manifest revision after the run (unchanged by a simulation)" }),
    rules: z
      .array(RulesFileRuleOutcome)
      .meta({ description: "Every rule of the file, in the file's order (disabled ones match nothing)" }),
  })
  .meta({ id: "RulesFileOutcome" });
/** What a rules file does or did to a manifest. */
export type RulesFileOutcome = z.infer<typeof RulesFileOutcome>;

/** The largest rules file, in characters, that a request may carry. */
export const MAX_RULES_FILE_CHARS = 256 * 1024;

/** `POST /api/jobs/{job_id}/rules-file/simulate | run`: the rules file's YAML text. */
export const RulesFileRequest = z
  .object({
    text: z
      .string()
      .min(1)
      .max(MAX_RULES_FILE_CHARS)
      .meta({ description: "The rules file's YAML text (version: 1, rules: [...])" }),
  })
  .strict()
  .meta({ id: "RulesFileRequest" });
/** A rules file sent to the server. */
export type RulesFileRequest = z.infer<typeof RulesFileRequest>;

/** Sums up matched rows per rule, in the file's order, with up to `examples` rows each. */
export function summarizeRulesFile(
  input: {
    jobId: string;
    applied: boolean;
    revision: number;
    rules: readonly ReviewRule[];
    /** Where each rule is in the file (`sources[i]` is `rules[i]`'s), for its line and location. */
    sources?: readonly RulesFileRuleSource[];
    matches: ReadonlyArray<{ row_id: string; changes: RowChanges["changes"]; rule_ids: readonly string[] }>;
    sourcePathOf: (rowId: string) => string;
  },
  examples = 3,
): RulesFileOutcome {
  const byRule = new Map<string, RulesFileRuleOutcome>(
    input.rules.map((r, i) => {
      const source = input.sources?.[i];
      const where = {
        ...(source?.line === undefined ? {} : { line: source.line }),
        ...(source?.location === undefined ? {} : { location: source.location }),
      };
      return [r.id ?? r.name, { name: r.name, ...where, matched: 0, changed: 0, examples: [] }];
    }),
  );
  const unchangedExamples = new Map<string, RulesFileExample[]>();
  let changedCount = 0;
  for (const m of input.matches) {
    const changed = Object.keys(m.changes).length > 0;
    if (changed) changedCount++;
    const example = { row_id: m.row_id, source_path: input.sourcePathOf(m.row_id), changes: m.changes };
    for (const id of m.rule_ids) {
      const out = byRule.get(id);
      if (out === undefined) continue;
      out.matched++;
      if (changed) {
        out.changed++;
        if (out.examples.length < examples) out.examples.push(example);
      } else {
        const list = unchangedExamples.get(id) ?? [];
        if (list.length < examples) list.push(example);
        unchangedExamples.set(id, list);
      }
    }
  }
  for (const [id, out] of byRule)
    if (out.examples.length === 0) out.examples = unchangedExamples.get(id) ?? [];
  return {
    job_id: input.jobId,
    applied: input.applied,
    matched_count: input.matches.length,
    changed_count: changedCount,
    revision: input.revision,
    rules: [...byRule.values()],
  };
}
