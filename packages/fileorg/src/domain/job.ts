import { z } from "zod";
import { ApplyResult } from "./apply-plan.js";
import { ORIGINAL_POLICIES } from "./originals.js";
import { PathInput } from "./path-input.js";
import { findStrategyPack, STRATEGY_PACKS } from "./strategy-packs.js";
import {
  FINISHED_JOB_STATUSES,
  JOB_STATUSES,
  type JobStatus,
  TRANSITION_EVENT_TYPES,
} from "./transitions.js";

/** Kinds of job. */
export const JOB_KINDS = ["analyze", "apply", "rollback"] as const;
/** A kind of job. */
export type JobKind = (typeof JOB_KINDS)[number];

/** Job statuses (the keys of {@link JOB_TRANSITIONS}). `queued → running → succeeded | failed | cancelling → cancelled`. */
export { FINISHED_JOB_STATUSES, JOB_STATUSES, type JobStatus } from "./transitions.js";

/** True when the job has finished (succeeded, failed or cancelled). */
export function isFinished(status: JobStatus): boolean {
  return (FINISHED_JOB_STATUSES as readonly JobStatus[]).includes(status);
}

/** True when a job may be retried (`failed` or `cancelled`). */
export function canRetry(status: JobStatus): boolean {
  return status === "failed" || status === "cancelled";
}

/** The naming template used when none is given. */
export const DEFAULT_NAMING_TEMPLATE = "{category}/{yyyy}/{name}{ext}";

/** `POST /api/jobs/analyze` body. */
export const AnalyzeRequest = z
  .object({
    source_dir: PathInput,
    output_dir: PathInput.optional().meta({
      description: `Defaults to \`source_dir\`; ${PathInput.description}`,
    }),
    naming_template: z.string().min(1).max(512).optional().meta({ example: DEFAULT_NAMING_TEMPLATE }),
    recursive: z.boolean().optional(),
    include_hidden: z.boolean().optional(),
    keep_units: z.boolean().optional().meta({
      description:
        "Plan folders that must stay whole (projects, bundles, albums, photo shoots) as units (default true)",
    }),
    detect_original_by: z.enum(ORIGINAL_POLICIES).optional().meta({
      description:
        "How a duplicate group's original is chosen: `name` (no copy marker, then oldest date, then shortest path; default) or `first_seen`",
    }),
    read_pdf_text: z.boolean().optional().meta({
      description:
        "Read the text of PDFs (their first pages, as the excerpt the rules' `text` filter tests). Default: only when a rule in effect at analyze (the strategy pack's, the saved rules) tests `text`; set it when a rules file with a `text` filter will run on the manifest",
    }),
    strategy_pack_id: z
      .string()
      .refine((id) => findStrategyPack(id) !== undefined, {
        message: `unknown strategy pack; use one of ${STRATEGY_PACKS.map((p) => p.id).join(", ")}`,
      })
      .optional()
      .meta({
        description:
          "The strategy pack whose categories, rules and threshold apply (default: the active one)",
      }),
  })
  .strict()
  .meta({ id: "FileorgAnalyzeRequest" });
/** `POST /api/jobs/analyze` body. */
export type AnalyzeRequest = z.infer<typeof AnalyzeRequest>;

/** The review buckets an apply may move rows of (blocked and conflict rows never move). */
export const APPLY_BUCKETS = ["auto_safe", "needs_review"] as const;
/** A review bucket an apply may move rows of. */
export type ApplyBucket = (typeof APPLY_BUCKETS)[number];

/** True when `value` is a bucket an apply may move rows of. */
export function isApplyBucket(value: unknown): value is ApplyBucket {
  return (APPLY_BUCKETS as readonly unknown[]).includes(value);
}

/** `POST /api/jobs/apply` body. */
export const ApplyRequest = z
  .object({
    job_id: z.string().min(1).meta({ description: "The analyze job whose manifest is applied" }),
    dry_run: z.boolean().optional(),
    plan_hash: z
      .string()
      .optional()
      .meta({ description: "When given, must equal the manifest's current plan hash" }),
    buckets: z.array(z.enum(APPLY_BUCKETS)).min(1).optional().meta({
      description:
        "Move the rows of these review buckets (naming needs_review moves rows nobody reviewed). Default, with neither buckets nor row_ids: auto_safe rows plus rows a person edited",
    }),
    row_ids: z.array(z.string().min(1)).min(1).max(100_000).optional().meta({
      description:
        "Move these rows (with buckets: these rows too); a blocked, conflict or skipped row still stays",
    }),
  })
  .strict()
  .meta({ id: "FileorgApplyRequest" });
/** `POST /api/jobs/apply` body. */
export type ApplyRequest = z.infer<typeof ApplyRequest>;

/** `POST /api/jobs/apply/plan` body: the names an apply would be given (no dry run, no plan hash). */
export const ApplyPlanRequest = ApplyRequest.pick({ job_id: true, buckets: true, row_ids: true })
  .strict()
  .meta({ id: "FileorgApplyPlanRequest" });
/** `POST /api/jobs/apply/plan` body. */
export type ApplyPlanRequest = z.infer<typeof ApplyPlanRequest>;

/** `POST /api/jobs/rollback` body. */
export const RollbackRequest = z
  .object({
    job_id: z.string().min(1).meta({ description: "The apply job to roll back" }),
    row_ids: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict()
  .meta({ id: "FileorgRollbackRequest" });
/** `POST /api/jobs/rollback` body. */
export type RollbackRequest = z.infer<typeof RollbackRequest>;

/** A job-level error. */
export const JobError = z
  .object({ code: z.string(), message: z.string(), details: z.unknown().optional() })
  .meta({ id: "FileorgJobError" });
/** A job-level error. */
export type JobError = z.infer<typeof JobError>;

/** A job: analyze, apply or rollback. */
export const Job = z
  .object({
    job_id: z.string().meta({ example: "job_01HZX3" }),
    kind: z.enum(JOB_KINDS),
    status: z.enum(JOB_STATUSES),
    phase: z.string(),
    progress: z.number().min(0).max(1),
    manifest_job_id: z.string().meta({ description: "The analyze job whose manifest this job works on" }),
    target_job_id: z.string().nullable().meta({ description: "For a rollback: the apply job rolled back" }),
    retry_of: z.string().nullable(),
    params: z.record(z.string(), z.unknown()),
    revision: z.number().int().nullable().meta({ description: "Manifest revision (analyze jobs)" }),
    plan_hash: z.string().nullable().meta({ description: "Manifest plan hash (analyze jobs)" }),
    result: z
      .union([ApplyResult, z.record(z.string(), z.unknown())])
      .nullable()
      .meta({ description: "What the job did: an apply job's is a FileorgApplyResult" }),
    completed_with_errors: z.boolean().meta({
      description: "Succeeded, but some rows failed (`result.failed_rows` > 0): not a clean run",
    }),
    error: JobError.nullable(),
    actor: z.string(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    updated_at: z.string(),
  })
  .meta({ id: "FileorgJob" });
/** A job. */
export type Job = z.infer<typeof Job>;

/** A page of jobs, newest first. */
export const JobList = z
  .object({ items: z.array(Job), next_cursor: z.string().nullable() })
  .meta({ id: "FileorgJobList" });
/** A page of jobs. */
export type JobList = z.infer<typeof JobList>;

/** Types of job events: the events the transition tables record status moves with, then the others. */
export const JOB_EVENT_TYPES = [
  ...TRANSITION_EVENT_TYPES,
  "progress",
  "phase",
  "manifest_edited",
  "recovered",
  "finished_with_errors",
] as const;
/** A type of job event. */
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** One entry of a job's append-only event log. */
export const JobEvent = z
  .object({
    job_id: z.string(),
    seq: z.number().int().positive(),
    type: z.enum(JOB_EVENT_TYPES),
    data: z.record(z.string(), z.unknown()),
    at: z.string(),
  })
  .meta({ id: "FileorgJobEvent" });
/** One entry of a job's event log. */
export type JobEvent = z.infer<typeof JobEvent>;

/** A page of events. */
export const JobEventList = z
  .object({ items: z.array(JobEvent), next_cursor: z.string().nullable() })
  .meta({ id: "FileorgJobEventList" });
/** A page of events. */
export type JobEventList = z.infer<typeof JobEventList>;

/** One hash-chained audit entry. */
export const AuditEntry = z
  .object({
    audit_id: z.number().int(),
    job_id: z.string().nullable(),
    at: z.string(),
    actor: z.string(),
    request_id: z.string().nullable(),
    action: z.string(),
    subject: z.string().nullable().meta({ description: "The row, conflict or job changed" }),
    before: z.unknown(),
    after: z.unknown(),
    prev_hash: z.string(),
    hash: z.string(),
  })
  .meta({ id: "FileorgAuditEntry" });
/** One hash-chained audit entry. */
export type AuditEntry = z.infer<typeof AuditEntry>;

/** A page of audit entries with the chain's verdict. */
export const AuditList = z
  .object({
    items: z.array(AuditEntry),
    next_cursor: z.string().nullable(),
    chain_valid: z.boolean().meta({ description: "False when an entry of the chain was tampered with" }),
  })
  .meta({ id: "FileorgAuditList" });
/** A page of audit entries. */
export type AuditList = z.infer<typeof AuditList>;

/** Who asks for a change, recorded in the audit log. */
export interface Actor {
  /** `token`, `local`, or another identity. */
  actor: string;
  requestId?: string | undefined;
}

/** A job report: totals, counts and durations. */
export const JobReport = z
  .object({
    job_id: z.string(),
    kind: z.enum(JOB_KINDS),
    status: z.enum(JOB_STATUSES),
    totals: z.object({ rows: z.number().int(), bytes: z.number().int() }),
    by_bucket: z.record(z.string(), z.number().int()),
    by_category: z.record(z.string(), z.number().int()),
    by_status: z.record(z.string(), z.number().int()),
    by_error_code: z.record(z.string(), z.number().int()),
    duplicates: z.object({ groups: z.number().int(), rows: z.number().int(), bytes: z.number().int() }),
    conflicts: z.object({ open: z.number().int(), resolved: z.number().int() }),
    bytes_moved: z.number().int(),
    durations_ms: z.record(z.string(), z.number()),
  })
  .meta({ id: "FileorgJobReport" });
/** A job report. */
export type JobReport = z.infer<typeof JobReport>;
