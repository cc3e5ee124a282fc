import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CONFLICT_KINDS, CONFLICT_STATUSES } from "../domain/conflict.js";
import { DATE_SOURCES } from "../domain/content-date.js";
import type { RowMeta } from "../domain/content-meta.js";
import type { JobError } from "../domain/job.js";
import { JOB_EVENT_TYPES, JOB_KINDS, JOB_STATUSES } from "../domain/job.js";
import type { AppliedRule, RowError } from "../domain/manifest.js";
import { REVIEW_BUCKETS, ROW_ACTIONS, ROW_STATUSES } from "../domain/manifest.js";
import type { DuplicateOriginal } from "../domain/originals.js";
import type { RowUnit } from "../domain/units.js";

/** Jobs of every kind. Analyze jobs also carry their manifest's revision and plan accumulator. */
export const jobs = sqliteTable(
  "fileorg_jobs",
  {
    id: text("id").primaryKey(),
    kind: text("kind", { enum: JOB_KINDS }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    phase: text("phase").notNull(),
    progress: real("progress").notNull().default(0),
    manifestJobId: text("manifest_job_id").notNull(),
    targetJobId: text("target_job_id"),
    retryOf: text("retry_of"),
    params: text("params", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    revision: integer("revision"),
    planAccumulator: text("plan_accumulator"),
    result: text("result", { mode: "json" }).$type<Record<string, unknown>>(),
    error: text("error", { mode: "json" }).$type<JobError>(),
    actor: text("actor").notNull(),
    phaseDurations: text("phase_durations", { mode: "json" }).$type<Record<string, number>>(),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    updatedAt: integer("updated_at").notNull(),
    /** The process (engine) running the job: `host:pid:nonce`. */
    leaseOwner: text("lease_owner"),
    /** Until when the owner's heartbeat holds the job; past it, another process may take the job over. */
    leaseExpiresAt: integer("lease_expires_at"),
  },
  (t) => [
    index("fileorg_jobs_created_idx").on(t.createdAt, t.id),
    index("fileorg_jobs_manifest_idx").on(t.manifestJobId, t.kind, t.status),
    index("fileorg_jobs_status_idx").on(t.status),
  ],
);

/** Where a row's file will be once applied: its target when it moves, else its source. */
const PLACE = "(CASE WHEN action = 'move' THEN target_path ELSE source_path END)";

/** Manifest rows, owned by an analyze job. */
export const rows = sqliteTable(
  "fileorg_rows",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    seq: integer("seq").notNull(),
    sourcePath: text("source_path").notNull(),
    targetPath: text("target_path").notNull(),
    targetKey: text("target_key").notNull(),
    size: integer("size").notNull(),
    mtime: integer("mtime").notNull(),
    /** The source's identity when analyzed (with size and mtime): device, inode, status change time (ms). */
    sourceDev: integer("source_dev"),
    sourceIno: integer("source_ino"),
    sourceCtime: integer("source_ctime"),
    sha256: text("sha256"),
    mime: text("mime"),
    /** A built-in category (`CATEGORIES`) or a custom one (`fileorg_categories`). */
    category: text("category").notNull(),
    confidence: real("confidence").notNull(),
    action: text("action", { enum: ROW_ACTIONS }).notNull(),
    reviewBucket: text("review_bucket", { enum: REVIEW_BUCKETS }).notNull(),
    reasonCodes: text("reason_codes", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: ROW_STATUSES }).notNull(),
    edited: integer("edited", { mode: "boolean" }).notNull().default(false),
    targetEdited: integer("target_edited", { mode: "boolean" }).notNull().default(false),
    blocked: integer("blocked", { mode: "boolean" }).notNull().default(false),
    targetOccupied: integer("target_occupied", { mode: "boolean" }).notNull().default(false),
    sourceChanged: integer("source_changed", { mode: "boolean" }).notNull().default(false),
    duplicateAccepted: integer("duplicate_accepted", { mode: "boolean" }).notNull().default(false),
    conflictIds: text("conflict_ids", { mode: "json" }).$type<string[]>().notNull(),
    planDigest: text("plan_digest").notNull(),
    error: text("error", { mode: "json" }).$type<RowError>(),
    updatedAt: integer("updated_at").notNull(),
    /** The strategy-pack and saved rules that acted on the row at analyze, in the order they applied. */
    appliedRules: text("applied_rules", { mode: "json" }).$type<AppliedRule[]>().notNull().default([]),
    /** The file's best date (ms; a wall-clock date read as UTC) and where it came from; null on older rows (mtime). */
    date: integer("date"),
    dateSource: text("date_source", { enum: DATE_SOURCES }),
    /** The unit (a folder kept whole) the row belongs to: its rows are approved, edited, applied together. */
    unitId: text("unit_id"),
    unit: text("unit", { mode: "json" }).$type<RowUnit>(),
    /** What the content says besides its date: a photo's camera and taken date, a track's tags; null: none. */
    meta: text("meta", { mode: "json" }).$type<RowMeta>(),
    /**
     * The folder of where the file will be (`PLACE`), with its trailing `/`: computed by SQLite (a virtual
     * column, never written), indexed so the grouped view counts folders without reading the rows.
     */
    placeDir: text("place_dir").generatedAlwaysAs(sql.raw(`rtrim(${PLACE}, replace(${PLACE}, '/', ''))`), {
      mode: "virtual",
    }),
  },
  (t) => [
    uniqueIndex("fileorg_rows_job_seq_idx").on(t.jobId, t.seq),
    index("fileorg_rows_bucket_idx").on(t.jobId, t.reviewBucket, t.seq),
    index("fileorg_rows_status_idx").on(t.jobId, t.status, t.seq),
    index("fileorg_rows_category_idx").on(t.jobId, t.category, t.seq),
    index("fileorg_rows_target_key_idx").on(t.jobId, t.targetKey),
    index("fileorg_rows_sha_idx").on(t.jobId, t.sha256),
    // Covers the grouped view: folders and action counts in one ordered pass over the index.
    index("fileorg_rows_place_idx").on(t.jobId, t.action, t.placeDir, t.size),
    index("fileorg_rows_unit_idx").on(t.jobId, t.unitId),
  ],
);

/**
 * The text excerpt of a row's file (a text file's first bytes, bounded at analyze), for the rules' `text`
 * filter. Apart from the rows so that reading rows never reads excerpts.
 */
export const rowTexts = sqliteTable(
  "fileorg_row_texts",
  {
    rowId: text("row_id").primaryKey(),
    jobId: text("job_id").notNull(),
    excerpt: text("excerpt").notNull(),
  },
  (t) => [index("fileorg_row_texts_job_idx").on(t.jobId)],
);

/** Conflicts of a manifest; an id is stable for a (job, kind, key). */
export const conflicts = sqliteTable(
  "fileorg_conflicts",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    kind: text("kind", { enum: CONFLICT_KINDS }).notNull(),
    key: text("key").notNull(),
    rowIds: text("row_ids", { mode: "json" }).$type<string[]>().notNull(),
    status: text("status", { enum: CONFLICT_STATUSES }).notNull(),
    resolution: text("resolution"),
    /** A duplicate group's original: by the manifest's policy, or a person's choice. */
    original: text("original", { mode: "json" }).$type<DuplicateOriginal>(),
    openedAt: integer("opened_at").notNull(),
    resolvedAt: integer("resolved_at"),
  },
  (t) => [index("fileorg_conflicts_job_idx").on(t.jobId, t.status, t.id)],
);

/** Journal operations. */
export const JOURNAL_OPS = ["move", "mkdir", "rmdir", "trash", "untrash", "copy", "uncopy"] as const;
/** Journal record states: an intent, then its completion. */
export const JOURNAL_STATES = ["intent", "done", "failed", "not_done"] as const;

/** The write-ahead journal of apply and rollback jobs; each record is HMAC-signed. */
export const journal = sqliteTable(
  "fileorg_journal",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    jobId: text("job_id").notNull(),
    rowId: text("row_id"),
    op: text("op", { enum: JOURNAL_OPS }).notNull(),
    fromPath: text("from_path"),
    toPath: text("to_path").notNull(),
    sha256: text("sha256"),
    size: integer("size"),
    state: text("state", { enum: JOURNAL_STATES }).notNull(),
    errorCode: text("error_code"),
    createdAt: integer("created_at").notNull(),
    completedAt: integer("completed_at"),
    signature: text("signature").notNull(),
    /**
     * A `copy`'s own file: the device and inode of the temp file it wrote, recorded (and signed) before
     * that file is hard-linked to the target (a link keeps the inode). Recovery and rollback only claim a
     * target that still is this inode. Null on every other op, and on a copy that never got to its link.
     */
    copyDev: integer("copy_dev"),
    copyIno: integer("copy_ino"),
  },
  (t) => [
    index("fileorg_journal_job_idx").on(t.jobId, t.state),
    index("fileorg_journal_row_idx").on(t.rowId),
    // The inbox asks whether a file is where an apply put it (it is never offered again).
    index("fileorg_journal_to_path_idx").on(t.toPath),
  ],
);

/** Append-only event log of every job. */
export const events = sqliteTable(
  "fileorg_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    jobId: text("job_id").notNull(),
    seq: integer("seq").notNull(),
    type: text("type", { enum: JOB_EVENT_TYPES }).notNull(),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    at: integer("at").notNull(),
  },
  (t) => [uniqueIndex("fileorg_events_job_seq_idx").on(t.jobId, t.seq)],
);

/** The hash-chained audit log of every state change. */
export const audit = sqliteTable(
  "fileorg_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    jobId: text("job_id"),
    at: integer("at").notNull(),
    actor: text("actor").notNull(),
    requestId: text("request_id"),
    action: text("action").notNull(),
    subject: text("subject"),
    before: text("before", { mode: "json" }).$type<unknown>(),
    after: text("after", { mode: "json" }).$type<unknown>(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [index("fileorg_audit_job_idx").on(t.jobId, t.id)],
);

/** Custom categories a person created (the built-in `CATEGORIES` are not stored). */
export const customCategories = sqliteTable("fileorg_categories", {
  name: text("name").primaryKey(),
  /** A naming template for the category's targets (`{category}` etc.), or null for the job's template. */
  targetTemplate: text("target_template"),
  createdAt: integer("created_at").notNull(),
});
