import type { ReviewRule, RowChanges } from "./review-rule.js";

/**
 * What the rules of a rules file do (simulation) or did (run) to a manifest, rule by rule. Pure.
 */

/** One row a rule matched, as shown for an example. */
export interface RulesFileExample {
  row_id: string;
  source_path: string;
  changes: RowChanges["changes"];
}

/** What one rule of the file does: the rows it matches, how many of them change, a few examples. */
export interface RulesFileRuleOutcome {
  name: string;
  /** Rows the rule matches (pending or failed rows only: finished rows are never changed). */
  matched: number;
  /** Of those, the rows whose plan changes (by this rule or by an earlier one with `continue: true`). */
  changed: number;
  /** The first few changed rows (matched rows when none changes), in analyze order. */
  examples: RulesFileExample[];
}

/** What a rules file does (`applied: false`) or did (`applied: true`) to a manifest. */
export interface RulesFileOutcome {
  job_id: string;
  applied: boolean;
  /** Rows at least one rule matches. */
  matched_count: number;
  /** Rows whose plan changes. */
  changed_count: number;
  /** The manifest revision after the run (unchanged by a simulation). */
  revision: number;
  /** Every rule of the file, in the file's order (disabled ones match nothing). */
  rules: RulesFileRuleOutcome[];
}

/** Sums up matched rows per rule, in the file's order, with up to `examples` rows each. */
export function summarizeRulesFile(
  input: {
    jobId: string;
    applied: boolean;
    revision: number;
    rules: readonly ReviewRule[];
    matches: ReadonlyArray<{ row_id: string; changes: RowChanges["changes"]; rule_ids: readonly string[] }>;
    sourcePathOf: (rowId: string) => string;
  },
  examples = 3,
): RulesFileOutcome {
  const byRule = new Map<string, RulesFileRuleOutcome>(
    input.rules.map((r) => [r.id ?? r.name, { name: r.name, matched: 0, changed: 0, examples: [] }]),
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
