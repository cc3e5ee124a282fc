import { isInside } from "./posix-path.js";
import { basenameOf, dirnameOf, extensionOf, nameTokensOf, type ReviewRow } from "./review-row.js";

/** Kinds of signal a row carries. `token` and `folder` are specific; `extension` and `mime` are generic. */
export const SIGNAL_KINDS = ["token", "folder", "extension", "mime"] as const;
/** A signal kind. */
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** Outcomes a person's edit teaches. `target_dir` is the target folder relative to the output root. */
export const OUTCOME_FIELDS = ["category", "target_dir"] as const;
/** An outcome field. */
export type OutcomeField = (typeof OUTCOME_FIELDS)[number];

/** One observable fact about a file. */
export interface Signal {
  kind: SignalKind;
  value: string;
}

/** What a person decided for a file. */
export interface Outcome {
  field: OutcomeField;
  value: string;
}

/** A learned signal → outcome pair with its counts. */
export interface LearnedRule {
  id: string;
  signal_kind: SignalKind;
  signal_value: string;
  outcome_field: OutcomeField;
  outcome_value: string;
  /** How many edits taught it. */
  count: number;
  /** In how many jobs. */
  job_count: number;
}

/** A suggestion for one row: never applied by itself, only shown (and used to rank and bucket). */
export interface Suggestion {
  field: OutcomeField;
  value: string;
  /** 0..1 */
  score: number;
  /** Whether the plan already does this. */
  agrees: boolean;
  /** The signals behind it, e.g. `token:invoice`. */
  because: string[];
}

/** Tuning of learning. */
export interface LearningOptions {
  /** Edits needed before a specific signal (token, folder) suggests anything. Default 2. */
  minCountSpecific: number;
  /** Edits needed before a generic signal (extension, MIME type) suggests anything. Default 5. */
  minCountGeneric: number;
  /** Smallest combined score that becomes a suggestion. Default 0.6. */
  minScore: number;
}

/** The default learning thresholds. */
export const DEFAULT_LEARNING: LearningOptions = { minCountSpecific: 2, minCountGeneric: 5, minScore: 0.6 };

const WEIGHT: Record<SignalKind, number> = { token: 1, folder: 0.9, extension: 0.6, mime: 0.5 };

/** The signals of a row: its name tokens, source folder name, extension and MIME type. */
export function signalsOf(row: Pick<ReviewRow, "source_path" | "mime">): Signal[] {
  const out: Signal[] = nameTokensOf(row.source_path).map((value) => ({ kind: "token", value }));
  const folder = basenameOf(dirnameOf(row.source_path)).toLowerCase();
  if (folder !== "") out.push({ kind: "folder", value: folder });
  const ext = extensionOf(row.source_path);
  if (ext !== "") out.push({ kind: "extension", value: ext });
  if (row.mime !== null && row.mime !== "") out.push({ kind: "mime", value: row.mime.toLowerCase() });
  return out;
}

/** The target folder of a path relative to the output root (`""` for the root itself, `null` when outside). */
export function targetDirOf(targetPath: string, outputRoot: string): string | null {
  const root = outputRoot.replace(/\/+$/, "");
  if (targetPath === root || !isInside(root, targetPath)) return null;
  const dir = dirnameOf(targetPath.slice(root.length + 1));
  return dir;
}

/**
 * What a person's edit of a row teaches: a changed category, and a changed target folder (relative to the
 * output root). Nothing when neither changed.
 */
export function outcomesOfEdit(
  before: Pick<ReviewRow, "category" | "target_path">,
  after: Pick<ReviewRow, "category" | "target_path">,
  outputRoot: string,
): Outcome[] {
  const out: Outcome[] = [];
  if (after.category !== before.category) out.push({ field: "category", value: after.category });
  const beforeDir = targetDirOf(before.target_path, outputRoot);
  const afterDir = targetDirOf(after.target_path, outputRoot);
  if (afterDir !== null && afterDir !== beforeDir) out.push({ field: "target_dir", value: afterDir });
  return out;
}

/**
 * How much a learned pair can be trusted, 0..1: its share among the outcomes recorded for the same signal
 * and field, times a factor that grows with its count (1 edit 0.5, 2 edits 0.75, 3 edits 0.875, …).
 */
export function strengthOf(rule: Pick<LearnedRule, "count">, totalForSignal: number): number {
  if (rule.count <= 0 || totalForSignal <= 0) return 0;
  return (rule.count / totalForSignal) * (1 - 0.5 ** rule.count);
}

/** Learned pairs indexed by signal, with the totals their strength is measured against. */
export interface LearnedIndex {
  bySignal: Map<string, LearnedRule[]>;
  totals: Map<string, number>;
}

/** Indexes learned pairs once, for suggesting over many rows. */
export function indexLearned(learned: readonly LearnedRule[]): LearnedIndex {
  const bySignal = new Map<string, LearnedRule[]>();
  const totals = new Map<string, number>();
  for (const r of learned) {
    const signal = `${r.signal_kind}:${r.signal_value}`;
    const list = bySignal.get(signal) ?? [];
    list.push(r);
    bySignal.set(signal, list);
    const key = `${signal}|${r.outcome_field}`;
    totals.set(key, (totals.get(key) ?? 0) + r.count);
  }
  return { bySignal, totals };
}

/** Whether a learned pair has been seen often enough to suggest anything. */
export function isPastThreshold(
  rule: Pick<LearnedRule, "signal_kind" | "count">,
  options: LearningOptions = DEFAULT_LEARNING,
): boolean {
  const generic = rule.signal_kind === "extension" || rule.signal_kind === "mime";
  return rule.count >= (generic ? options.minCountGeneric : options.minCountSpecific);
}

/**
 * Suggestions for a row from learned pairs: each pair whose signal the row carries and whose count passed
 * its threshold votes for its outcome with its strength times the signal's weight; votes for one outcome are
 * combined (noisy-or). The best outcome per field is suggested when it scores at least `minScore`.
 */
export function suggestFor(
  row: Pick<ReviewRow, "source_path" | "mime" | "category" | "target_path">,
  learned: LearnedIndex | readonly LearnedRule[],
  outputRoot: string,
  options: LearningOptions = DEFAULT_LEARNING,
): Suggestion[] {
  const index = "bySignal" in learned ? learned : indexLearned(learned);
  if (index.bySignal.size === 0) return [];
  const votes = new Map<string, { field: OutcomeField; value: string; miss: number; because: string[] }>();
  for (const s of signalsOf(row)) {
    const signal = `${s.kind}:${s.value}`;
    for (const r of index.bySignal.get(signal) ?? []) {
      if (!isPastThreshold(r, options)) continue;
      const strength =
        strengthOf(r, index.totals.get(`${signal}|${r.outcome_field}`) ?? r.count) * WEIGHT[r.signal_kind];
      const key = `${r.outcome_field}\u0000${r.outcome_value}`;
      const vote = votes.get(key) ?? { field: r.outcome_field, value: r.outcome_value, miss: 1, because: [] };
      vote.miss *= 1 - strength;
      vote.because.push(signal);
      votes.set(key, vote);
    }
  }
  const best = new Map<OutcomeField, Suggestion>();
  for (const v of votes.values()) {
    const score = Math.round((1 - v.miss) * 1000) / 1000;
    if (score < options.minScore) continue;
    const current = best.get(v.field);
    if (current !== undefined && current.score >= score) continue;
    const agrees =
      v.field === "category"
        ? row.category === v.value
        : targetDirOf(row.target_path, outputRoot) === v.value;
    best.set(v.field, { field: v.field, value: v.value, score, agrees, because: v.because.sort() });
  }
  return [...best.values()].sort((a, b) => a.field.localeCompare(b.field));
}

/** Confidence raised by agreeing suggestions: each closes half of the remaining gap, scaled by its score. */
export function boostConfidence(confidence: number, suggestions: readonly Suggestion[]): number {
  let c = confidence;
  for (const s of suggestions) if (s.agrees) c += (1 - c) * s.score * 0.5;
  return Math.round(Math.min(1, c) * 1000) / 1000;
}
