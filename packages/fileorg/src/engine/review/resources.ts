import { type SQL, sql } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { DEFAULT_LEARNING, type LearnedIndex, type LearningOptions } from "../../domain/learned-signals.js";
import type { ReviewSummary } from "../../domain/review-api.js";
import type { ReviewRowFacts } from "../../domain/review-row.js";
import { rows } from "../../store/schema.js";
import type { FileorgEngine } from "../engine.js";
import { type RowRecord, toManifestRow } from "../manifest/index.js";
import type { PreferencesEngine } from "../preferences/index.js";
import { type Clock, type IdGenerator, randomIds } from "../review-ids.js";

/** What the review engine is built from. */
export interface ReviewEngineOptions {
  /** The same database the core engine was given. */
  db: LibSQLDatabase;
  fileorg: FileorgEngine;
  preferences: PreferencesEngine;
  clock?: Clock;
  ids?: IdGenerator;
  learning?: LearningOptions;
}

/**
 * What review's hooks work over — everything of review but the core engine, so the composition builds it
 * before the core that calls them (`createFileorg`): the preferences, the ports and the caches.
 */
export interface ReviewShared {
  db: LibSQLDatabase;
  preferences: PreferencesEngine;
  clock: Clock;
  ids: IdGenerator;
  learning: LearningOptions;
  /** Review summaries per job, valid for one manifest revision. */
  summaries: Map<string, { revision: number; summary: ReviewSummary }>;
  /** The learned index, valid while `version` is the current learned version. */
  learned: { version: number; cache: { version: number; index: LearnedIndex } | undefined };
}

/** What every review module shares: the core engine it works through, and the rest of {@link ReviewShared}. */
export interface ReviewResources extends ReviewShared {
  fileorg: FileorgEngine;
}

/** Review's state and ports without the core engine (the hooks' half). */
export function createReviewShared(options: Omit<ReviewEngineOptions, "fileorg">): ReviewShared {
  return {
    db: options.db,
    preferences: options.preferences,
    clock: options.clock ?? Date.now,
    ids: options.ids ?? randomIds,
    learning: options.learning ?? DEFAULT_LEARNING,
    summaries: new Map(),
    learned: { version: 0, cache: undefined },
  };
}

/** Rows carrying `reason` among their reason codes. */
export function reasonFilter(reason: string): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${rows.reasonCodes}) WHERE value = ${reason})`;
}

/** A stored row as the facts review rules are evaluated over. */
export function toFacts(r: RowRecord): ReviewRowFacts {
  const { job_id: _job, conflict_ids: _conflicts, applied_rules: _rules, ...row } = toManifestRow(r);
  return { ...row, has_conflict: r.conflictIds.length > 0 };
}
