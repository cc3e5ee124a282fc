import { encodeCursor, runTransaction } from "@vetted/store";
import { asc, desc, eq, sql } from "drizzle-orm";
import {
  indexLearned,
  isPastThreshold,
  type LearnedIndex,
  type LearnedRule,
  type OutcomeField,
  outcomesOfEdit,
  type SignalKind,
  signalsOf,
  strengthOf,
} from "../../domain/learned-signals.js";
import type { LearnedRuleView } from "../../domain/review-api.js";
import { ReviewError } from "../../review-errors.js";
import { learnedRules } from "../../store/review-schema.js";
import { chunk } from "../db.js";
import type { RowsEdited } from "../manifest/index.js";
import { cursorKey, pageLimit } from "../query-kit.js";
import type { ReviewShared } from "./resources.js";

/** The list name a learned-rules cursor is bound to. */
const LEARNED_LIST = "fileorg.learned-rules";
/** Edits a person makes directly, which learning records (rule applications and conflict renames are not). */
const LEARN_FROM: ReadonlySet<string> = new Set(["row.edited", "review.triage"]);

function toLearned(r: typeof learnedRules.$inferSelect): LearnedRule {
  return {
    id: r.id,
    signal_kind: r.signalKind as SignalKind,
    signal_value: r.signalValue,
    outcome_field: r.outcomeField as OutcomeField,
    outcome_value: r.outcomeValue,
    count: r.count,
    job_count: r.jobCount,
  };
}

/** The learned signals indexed for suggestions, cached until learning changes. */
export async function learnedIndex(res: ReviewShared): Promise<LearnedIndex> {
  const { learned } = res;
  if (learned.cache?.version === learned.version) return learned.cache.index;
  const version = learned.version;
  const all = await res.db.select().from(learnedRules);
  const index = indexLearned(all.map(toLearned));
  learned.cache = { version, index };
  return index;
}

type Pair = { kind: string; value: string; field: string; outcome: string };

function pairsOf(event: RowsEdited): Pair[] {
  const pairs: Pair[] = [];
  for (const { before, after } of event.edits) {
    const outcomes = outcomesOfEdit(before, after, event.outputDir);
    if (outcomes.length === 0) continue;
    for (const s of signalsOf(before)) {
      for (const o of outcomes)
        pairs.push({ kind: s.kind, value: s.value, field: o.field, outcome: o.value });
    }
  }
  return pairs;
}

/** Learns from a committed patch batch a person made: each signal of a row → the outcome they chose. */
export async function recordEdits(res: ReviewShared, event: RowsEdited): Promise<void> {
  if (!LEARN_FROM.has(event.auditAction)) return;
  const now = res.clock();
  const pairs = pairsOf(event);
  if (pairs.length === 0) return;
  await runTransaction(res.db, async (tx) => {
    for (const part of chunk(pairs, 200)) {
      for (const p of part) {
        await tx
          .insert(learnedRules)
          .values({
            id: res.ids("lrn"),
            signalKind: p.kind,
            signalValue: p.value,
            outcomeField: p.field,
            outcomeValue: p.outcome,
            count: 1,
            jobCount: 1,
            lastJobId: event.jobId,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: [
              learnedRules.signalKind,
              learnedRules.signalValue,
              learnedRules.outcomeField,
              learnedRules.outcomeValue,
            ],
            set: {
              count: sql`${learnedRules.count} + 1`,
              jobCount: sql`${learnedRules.jobCount} + (CASE WHEN ${learnedRules.lastJobId} IS ${event.jobId} THEN 0 ELSE 1 END)`,
              lastJobId: event.jobId,
              updatedAt: now,
            },
          });
      }
    }
  });
  res.learned.version += 1;
}

/** Paging of the learned list. */
export interface LearnedPageQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** The sort key of a learned view: strength (in thousandths) and count descending, then id. */
function keyOf(v: LearnedRuleView): [number, number, string] {
  return [Math.round(v.strength * 1000), v.count, v.id];
}

function isAfter(v: LearnedRuleView, key: readonly (string | number)[]): boolean {
  const [s, c, id] = keyOf(v);
  const [ks, kc, kid] = [Number(key[0]), Number(key[1]), String(key[2])];
  return s < ks || (s === ks && (c < kc || (c === kc && id > kid)));
}

async function learnedViews(res: ReviewShared): Promise<LearnedRuleView[]> {
  const all = await res.db
    .select()
    .from(learnedRules)
    .orderBy(desc(learnedRules.count), asc(learnedRules.id));
  const totals = new Map<string, number>();
  const group = (r: typeof learnedRules.$inferSelect) => `${r.signalKind}:${r.signalValue}|${r.outcomeField}`;
  for (const r of all) totals.set(group(r), (totals.get(group(r)) ?? 0) + r.count);
  const items = all.map((r) => {
    const learned = toLearned(r);
    return {
      ...learned,
      strength: Math.round(strengthOf(learned, totals.get(group(r)) ?? r.count) * 1000) / 1000,
      suggests: isPastThreshold(learned, res.learning),
      updated_at: new Date(r.updatedAt).toISOString(),
    };
  });
  items.sort((a, b) => b.strength - a.strength || b.count - a.count || a.id.localeCompare(b.id));
  return items;
}

/**
 * Learned signal → outcome pairs, strongest first, with counts and strength, one page at a time (a bad
 * cursor is CURSOR_INVALID; without a limit a page holds up to the one maximum of every list).
 */
export async function listLearned(
  res: ReviewShared,
  query: LearnedPageQuery = {},
): Promise<{ items: LearnedRuleView[]; next_cursor: string | null }> {
  const after = cursorKey(query.cursor, LEARNED_LIST, ["integer", "integer", "string"]);
  const limit = pageLimit(query.limit, Number.POSITIVE_INFINITY);
  const all = await learnedViews(res);
  const rest = after === undefined ? all : all.filter((v) => isAfter(v, after));
  const items = rest.slice(0, limit);
  const last = items[items.length - 1];
  const more = rest.length > limit && last !== undefined;
  return { items, next_cursor: more ? encodeCursor(LEARNED_LIST, keyOf(last)) : null };
}

/** Clears learned pairs: all, or one by id (LEARNED_RULE_NOT_FOUND when unknown). */
export async function clearLearned(res: ReviewShared, id?: string): Promise<void> {
  if (id === undefined) {
    await runTransaction(res.db, (tx) => tx.delete(learnedRules));
  } else {
    const gone = await runTransaction(res.db, (tx) =>
      tx.delete(learnedRules).where(eq(learnedRules.id, id)).returning({ id: learnedRules.id }),
    );
    if (gone.length === 0) throw new ReviewError("LEARNED_RULE_NOT_FOUND", `No learned rule ${id}.`, { id });
  }
  res.learned.version += 1;
}
