import { z } from "zod";
import { DATE_SOURCES } from "./content-date.js";
import { RowMeta } from "./content-meta.js";
import { PathInput } from "./path-input.js";
import { ROW_STATUSES } from "./transitions.js";
import { RowUnit } from "./units.js";

/** What apply does with a row. */
export const ROW_ACTIONS = ["move", "skip", "trash", "copy"] as const;
/**
 * What apply does with a row: `move` it to `target_path`, `skip` it, `trash` it (moved to the system
 * trash per the freedesktop.org Trash specification, with its `.trashinfo`; rollback restores it), or
 * `copy` it to `target_path` (the source stays; rollback removes exactly the copy it made).
 */
export type RowAction = (typeof ROW_ACTIONS)[number];

/** Review buckets, from most to least severe. */
export const REVIEW_BUCKETS = ["blocked", "conflict", "needs_review", "auto_safe"] as const;
/** Where a row sits in review: `blocked` > `conflict` > `needs_review` > `auto_safe`. */
export type ReviewBucket = (typeof REVIEW_BUCKETS)[number];

/** Lifecycle of a row across apply and rollback (the keys of `ROW_TRANSITIONS`). */
export { ROW_STATUSES, type RowStatus } from "./transitions.js";

/** File categories a row can be filed under. */
export const CATEGORIES = [
  "documents",
  "images",
  "audio",
  "video",
  "archives",
  "code",
  "spreadsheets",
  "presentations",
  "ebooks",
  "installers",
  "fonts",
  "other",
] as const;
/** A file category. */
export type Category = (typeof CATEGORIES)[number];

/**
 * The name of a category, built in or custom: lowercase letters, digits, `-`, `_` and `.`, starting with a
 * letter or digit. Whether it is *known* is checked against the built-in and custom categories at use.
 */
export const CategoryName = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[a-z0-9][a-z0-9._-]*$/,
    "lowercase letters, digits, `-`, `_` and `.`, starting with a letter or digit",
  )
  .meta({ id: "FileorgCategoryName", example: "receipts" });

/** Where a rule that acted on a row at analyze came from. */
export const RULE_SOURCES = ["strategy_pack", "saved_rule"] as const;

/** A rule that acted on a row at analyze: its id and name, and the pack it came with (if any). */
export const AppliedRule = z
  .object({
    rule_id: z.string(),
    name: z.string(),
    source: z.enum(RULE_SOURCES),
    pack_id: z.string().optional().meta({ description: "The strategy pack the rule came with" }),
  })
  .meta({ id: "FileorgAppliedRule" });
/** A rule that acted on a row at analyze. */
export type AppliedRule = z.infer<typeof AppliedRule>;

/** A row-level error: why a row is blocked or why it failed. */
export const RowError = z
  .object({
    code: z.string().meta({ example: "UNREADABLE" }),
    message: z.string(),
  })
  .meta({ id: "FileorgRowError" });
/** A row-level error: why a row is blocked or why it failed. */
export type RowError = z.infer<typeof RowError>;

/** One proposed move: a file, where it is, where the plan puts it, and its review state. */
export const ManifestRow = z
  .object({
    row_id: z.string().meta({ example: "row_01HZX3" }),
    job_id: z.string().meta({ description: "The analyze job whose manifest holds the row" }),
    source_path: z.string().meta({ description: "Absolute path of the file when analyzed" }),
    target_path: z.string().meta({ description: "Absolute path the plan moves the file to" }),
    size: z.number().int().nonnegative(),
    mtime: z.number().int().meta({ description: "Modification time, ms since the epoch" }),
    sha256: z.string().nullable(),
    mime: z.string().nullable(),
    category: z.string().meta({ description: "A built-in or custom category", example: "documents" }),
    confidence: z.number().min(0).max(1),
    action: z.enum(ROW_ACTIONS),
    review_bucket: z.enum(REVIEW_BUCKETS),
    reason_codes: z.array(z.string()),
    status: z.enum(ROW_STATUSES),
    edited: z.boolean(),
    error: RowError.nullable(),
    conflict_ids: z.array(z.string()).meta({ description: "Open conflicts this row is part of" }),
    applied_rules: z
      .array(AppliedRule)
      .meta({ description: "Strategy-pack and saved rules that acted on the row at analyze, in order" }),
    date: z.number().int().meta({
      description:
        "The file's best date, ms since the epoch (a date written as wall-clock time is read as UTC); {yyyy} {mm} {dd} use it",
    }),
    date_source: z.enum(DATE_SOURCES).meta({
      description:
        "Where `date` comes from: EXIF, PDF, Office core properties, the file name, else the mtime",
    }),
    unit: RowUnit.nullable().meta({
      description:
        "The folder kept whole this row belongs to (its rows are approved, edited, applied and rolled back together), and why it was recognised",
    }),
    meta: RowMeta.nullable().meta({
      description:
        "What analyze read from the content besides its date: a photo's camera and when it was taken, a track's tags; null when it read nothing (never the text excerpt)",
    }),
  })
  .meta({ id: "FileorgManifestRow" });
/** One proposed move: a file, where it is, where the plan puts it, and its review state. */
export type ManifestRow = z.infer<typeof ManifestRow>;

/** A field-level patch of one row; fields left out keep their values. */
export const RowPatch = z
  .object({
    target_path: PathInput.optional().meta({
      description: `Absolute, or relative to the job's output directory; ${PathInput.description}`,
    }),
    category: CategoryName.optional().meta({ description: "A known category (built-in or custom)" }),
    action: z.enum(ROW_ACTIONS).optional(),
  })
  .strict()
  .meta({ id: "FileorgRowPatch" });
/** A field-level patch of one row; fields left out keep their values. */
export type RowPatch = z.infer<typeof RowPatch>;

/** `POST /manifest/batch` body: patches applied atomically, bumping the revision once. */
export const BatchEditRequest = z
  .object({
    operations: z
      .array(z.object({ row_id: z.string().min(1), patch: RowPatch }))
      .min(1)
      .max(10_000),
  })
  .meta({ id: "FileorgBatchEditRequest" });
/** `POST /manifest/batch` body. */
export type BatchEditRequest = z.infer<typeof BatchEditRequest>;

/** What an edit answers: the new revision and plan hash, and the rows as they now are. */
export const EditResult = z
  .object({
    revision: z.number().int(),
    plan_hash: z.string(),
    items: z.array(ManifestRow),
  })
  .meta({ id: "FileorgEditResult" });
/** What an edit answers. */
export type EditResult = z.infer<typeof EditResult>;

/** Filters of a manifest listing; every given filter must match. */
export const ManifestFilter = z.object({
  bucket: z.enum(REVIEW_BUCKETS).optional(),
  status: z.enum(ROW_STATUSES).optional(),
  category: CategoryName.optional(),
  action: z.enum(ROW_ACTIONS).optional(),
  text: z.string().min(1).optional().meta({ description: "Substring of the source or target path" }),
});
/** Filters of a manifest listing. */
export type ManifestFilter = z.infer<typeof ManifestFilter>;

/** One page of a manifest. */
export const ManifestPage = z
  .object({
    items: z.array(ManifestRow),
    next_cursor: z.string().nullable(),
    revision: z.number().int(),
    plan_hash: z.string(),
  })
  .meta({ id: "FileorgManifestPage" });
/** One page of a manifest. */
export type ManifestPage = z.infer<typeof ManifestPage>;
