import { z } from "zod";
import { REVIEW_BUCKETS, type ReviewBucket, type RowAction } from "./manifest.js";
import type { RowStatus } from "./transitions.js";

/**
 * Why a row stays where it is at apply: `unreviewed` (a `needs_review` row nobody approved or edited, not
 * named by the request), `not_selected` (outside the buckets or rows the request named), `conflict_open`,
 * `skipped` (`action: skip`), `blocked` (unreadable, a symlink, a special file…), `already_applied`,
 * `unit_held` (the row would move, but its unit moves whole or not at all and another of its rows stays).
 */
export const APPLY_STAY_REASONS = [
  "unreviewed",
  "not_selected",
  "conflict_open",
  "skipped",
  "blocked",
  "already_applied",
  "unit_held",
] as const;
/** Why a row stays where it is at apply. */
export type ApplyStayReason = (typeof APPLY_STAY_REASONS)[number];

/** What decides a row's fate at apply. */
export interface ApplyRowFacts {
  bucket: ReviewBucket;
  action: RowAction;
  status: RowStatus;
  /** A person edited the row (its `needs_review` is then reviewed, not unreviewed). */
  edited: boolean;
  /** The row is in what the request names (its buckets or row ids), or in the default selection. */
  selected: boolean;
  /**
   * The row belongs to a unit that stays whole while the row itself would be selected: another row of the
   * unit is blocked, in conflict, skipped or unreviewed (a unit's `selected` is the whole unit's).
   */
  unitHeld?: boolean | undefined;
}

/** Whether a row moves at apply, or why it stays. */
export type ApplyFate = { moves: true } | { moves: false; reason: ApplyStayReason };

/**
 * A row's fate at apply (pure): applied rows, blocked rows, rows in an open conflict and skipped rows stay
 * whatever the request names; the others move when selected. An unselected `needs_review` row nobody edited
 * is `unreviewed`.
 */
export function decideApplyFate(f: ApplyRowFacts): ApplyFate {
  if (f.status === "applied") return { moves: false, reason: "already_applied" };
  if (f.bucket === "blocked") return { moves: false, reason: "blocked" };
  if (f.bucket === "conflict") return { moves: false, reason: "conflict_open" };
  if (f.action === "skip") return { moves: false, reason: "skipped" };
  if (f.selected) return { moves: true };
  if (f.unitHeld === true) return { moves: false, reason: "unit_held" };
  return { moves: false, reason: f.bucket === "needs_review" && !f.edited ? "unreviewed" : "not_selected" };
}

/** Counts of rows per reason they stay. */
export const ApplyStays = z
  .partialRecord(z.enum(APPLY_STAY_REASONS), z.number().int())
  .meta({ id: "FileorgApplyStays", description: "Rows that stay where they are, per reason" });
/** Counts of rows per reason they stay. */
export type ApplyStays = z.infer<typeof ApplyStays>;

/** What an apply does with the rows of one review bucket. */
export const ApplyBucketTally = z
  .object({
    moves: z.number().int().meta({ description: "Rows selected to move (a failed move is in `by_error`)" }),
    stays: ApplyStays,
  })
  .meta({ id: "FileorgApplyBucketTally" });
/** What an apply does with the rows of one review bucket. */
export type ApplyBucketTally = z.infer<typeof ApplyBucketTally>;

/** Which rows the request named: none (the default), buckets, row ids. */
export const ApplySelection = z
  .object({
    default: z.boolean().meta({
      description:
        "True when the request named no buckets and no rows: auto_safe rows plus rows a person edited",
    }),
    buckets: z.array(z.enum(REVIEW_BUCKETS)).meta({ description: "The buckets the request named" }),
    row_ids: z.number().int().meta({ description: "How many rows the request named by id" }),
  })
  .meta({ id: "FileorgApplySelection" });
/** Which rows an apply request named. */
export type ApplySelection = z.infer<typeof ApplySelection>;

/** What an apply of a manifest would move and leave, by bucket (no file is read to answer it). */
export const ApplyPlan = z
  .object({
    job_id: z.string().meta({ description: "The analyze job" }),
    plan_hash: z
      .string()
      .nullable()
      .meta({ description: "Pass it to the apply so that it applies exactly this plan" }),
    selection: ApplySelection,
    rows: z.number().int().meta({ description: "Rows selected to move" }),
    stays: ApplyStays,
    by_bucket: z.object({
      auto_safe: ApplyBucketTally,
      needs_review: ApplyBucketTally,
      conflict: ApplyBucketTally,
      blocked: ApplyBucketTally,
    }),
    included_unreviewed: z.number().int().meta({
      description:
        "needs_review rows nobody approved or edited that move because the request named them (buckets or row_ids)",
    }),
  })
  .meta({ id: "FileorgApplyPlan" });
/** What an apply of a manifest would move and leave, by bucket. */
export type ApplyPlan = z.infer<typeof ApplyPlan>;

/** Rows of the same facts, counted. */
export interface ApplyRowGroup extends ApplyRowFacts {
  count: number;
}

/** Adds `n` to `reason` of a stays record. */
function addStay(stays: ApplyStays, reason: ApplyStayReason, n: number): void {
  stays[reason] = (stays[reason] ?? 0) + n;
}

/** Tallies grouped rows into a plan's counts (pure). */
export function tallyApplyPlan(
  groups: readonly ApplyRowGroup[],
): Pick<ApplyPlan, "rows" | "stays" | "by_bucket" | "included_unreviewed"> {
  const tally = () => ({ moves: 0, stays: {} });
  const byBucket = { auto_safe: tally(), needs_review: tally(), conflict: tally(), blocked: tally() };
  const stays: ApplyStays = {};
  let moves = 0;
  let includedUnreviewed = 0;
  for (const g of groups) {
    const fate = decideApplyFate(g);
    const bucket: ApplyBucketTally = byBucket[g.bucket];
    if (fate.moves) {
      moves += g.count;
      bucket.moves += g.count;
      if (g.bucket === "needs_review" && !g.edited) includedUnreviewed += g.count;
    } else {
      addStay(stays, fate.reason, g.count);
      addStay(bucket.stays, fate.reason, g.count);
    }
  }
  return { rows: moves, stays, by_bucket: byBucket, included_unreviewed: includedUnreviewed };
}

/** A symlink in the source folder whose target file this apply moved: the link now dangles. */
export const SymlinkTargetMoved = z
  .object({
    code: z.literal("SYMLINK_TARGET_MOVED"),
    row_id: z.string(),
    link: z.string(),
    target: z.string(),
    moved_to: z.string(),
  })
  .meta({ id: "FileorgSymlinkTargetMoved" });

/** A symlink to a folder of the source whose files this apply moved out: the link dangles or points at less. */
export const FolderLinkTargetMoved = z
  .object({
    code: z.literal("FOLDER_LINK_TARGET_MOVED"),
    row_id: z.string(),
    link: z.string(),
    target: z.string(),
    files_moved: z.number().int().meta({ description: "Files moved out of the folder the link points at" }),
    dangling: z.boolean().optional().meta({
      description: "After a real apply: the folder is gone (tidied away), the link points at nothing",
    }),
  })
  .meta({ id: "FileorgFolderLinkTargetMoved" });

/** A warning an apply (or its dry run) raised; the links themselves are never changed. */
export const ApplyWarning = z
  .discriminatedUnion("code", [SymlinkTargetMoved, FolderLinkTargetMoved])
  .meta({ id: "FileorgApplyWarning" });
/** A warning an apply raised. */
export type ApplyWarning = z.infer<typeof ApplyWarning>;

/** The result of an apply job (a dry run predicts: `would_move`, `would_fail`; a real one moves). */
export const ApplyResult = ApplyPlan.omit({ job_id: true, plan_hash: true })
  .extend({
    dry_run: z.boolean().optional(),
    would_move: z.number().int().optional(),
    would_fail: z.number().int().optional(),
    moved: z.number().int().optional(),
    failed: z.number().int().optional(),
    failed_rows: z.number().int().optional(),
    completed_with_errors: z.boolean().optional(),
    bytes_moved: z.number().int().optional(),
    by_error: z.record(z.string(), z.number().int()).meta({
      description: "Rows that would fail or failed, per row error code (e.g. SOURCE_CHANGED)",
    }),
    warnings: z.array(ApplyWarning).meta({ description: "The first 100 warnings" }),
    moved_link_targets: z.number().int().optional().meta({ description: "All warnings, counted" }),
    folders_removed: z.number().int().optional(),
    folders_kept: z.number().int().optional(),
    cancelled: z.boolean().optional(),
  })
  .meta({ id: "FileorgApplyResult" });
/** The result of an apply job. */
export type ApplyResult = z.infer<typeof ApplyResult>;
