import { z } from "zod";
import { CategoryName, ManifestRow } from "./manifest.js";
import { pathLengthProblem } from "./path-limits.js";
import { ReviewBucketEnum } from "./review-row.js";
import { ReviewRule } from "./review-rule.js";
import { ReasonCode, strictFields } from "./row-filter.js";
import { selectionIssues } from "./triage-selection.js";

/** A reason code with its human label. */
export const ReviewReason = z.object({ code: z.string(), label: z.string() }).meta({ id: "ReviewReason" });

/** A learned suggestion shown on a row; never applied by itself. */
export const RowSuggestion = z
  .object({
    field: z.enum(["category", "target_dir"]),
    value: z.string(),
    score: z.number(),
    agrees: z.boolean().meta({ description: "Whether the plan already does this" }),
    because: z.array(z.string()).meta({ description: "The learned signals behind it, e.g. token:invoice" }),
  })
  .meta({ id: "RowSuggestion" });

/** A row of the review queue: the manifest row, its reasons with labels, and learned suggestions. */
export const ReviewQueueRow = ManifestRow.extend({
  reasons: z.array(ReviewReason),
  suggestions: z.array(RowSuggestion),
}).meta({ id: "ReviewQueueRow" });
/** A row of the review queue. */
export type ReviewQueueRow = z.infer<typeof ReviewQueueRow>;

/** Counts per bucket and the most frequent reasons among rows needing attention. */
export const ReviewSummary = z
  .object({
    total: z.number().int(),
    needing_attention: z.number().int(),
    buckets: z.object({
      blocked: z.number().int(),
      conflict: z.number().int(),
      needs_review: z.number().int(),
      auto_safe: z.number().int(),
    }),
    top_reasons: z.array(ReviewReason.extend({ count: z.number().int() })),
  })
  .meta({ id: "ReviewSummary" });
/** Counts per bucket and the top reasons. */
export type ReviewSummary = z.infer<typeof ReviewSummary>;

/** Query of the review queue. */
export const ReviewQueueQuery = z.object({
  bucket: ReviewBucketEnum.optional(),
  reason: ReasonCode.optional().meta({ description: "Only rows with this reason code" }),
  view: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "A saved view's id: its filter and sort apply; explicit query fields win" }),
  cursor: z.string().optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: "Page size (default 100); a page never holds more than 500 rows (MAX_PAGE_LIMIT)" }),
});
/** Query of the review queue. */
export type ReviewQueueQuery = z.infer<typeof ReviewQueueQuery>;

/** One page of the review queue, highest priority first. */
export const ReviewQueuePage = z
  .object({
    items: z.array(ReviewQueueRow),
    next_cursor: z.string().nullable(),
    revision: z.number().int(),
    summary: ReviewSummary,
  })
  .meta({ id: "ReviewQueuePage" });
/** One page of the review queue. */
export type ReviewQueuePage = z.infer<typeof ReviewQueuePage>;

/** Which rows a batch action targets: explicit ids, or a filter (an unknown field is refused). */
export const TriageFilter = strictFields(
  {
    bucket: ReviewBucketEnum.optional(),
    reason: ReasonCode.optional(),
    category: CategoryName.optional(),
    q: z.string().min(1).optional().meta({ description: "Substring of the source or target path" }),
  },
  "filter",
);

/** `POST .../review-queue/batch-triage`: one action over many rows. */
export const BatchTriageRequest = z
  .object({
    row_ids: z.array(z.string().min(1)).min(1).max(100_000).optional(),
    filter: TriageFilter.optional(),
    all: z.literal(true).optional().meta({
      description: "Act on every row of the manifest: required when neither row_ids nor a filter narrow it",
    }),
    action: z.enum(["approve", "skip", "set_category", "set_target"]),
    value: z.string().min(1).optional().meta({
      description:
        "The category, or the target folder or naming template (at most 4096 bytes, each segment at most 255)",
    }),
  })
  .superRefine((r, ctx) => {
    for (const issue of selectionIssues(r)) ctx.addIssue({ code: "custom", ...issue });
    if ((r.action === "set_category" || r.action === "set_target") && r.value === undefined) {
      ctx.addIssue({ code: "custom", path: ["value"], message: `${r.action} needs a value` });
    }
    // Whether the category is known (built-in or custom) is checked by the engine: CATEGORY_UNKNOWN.
    if (r.action === "set_category" && r.value !== undefined && !CategoryName.safeParse(r.value).success) {
      ctx.addIssue({ code: "custom", path: ["value"], message: "not a category name" });
    }
    // A target folder or template is a path: bounded before any row is rendered with it.
    const tooLong =
      r.action === "set_target" && r.value !== undefined ? pathLengthProblem(r.value) : undefined;
    if (tooLong !== undefined) ctx.addIssue({ code: "custom", path: ["value"], message: tooLong });
  })
  .meta({ id: "BatchTriageRequest" });
/** A batch triage request. */
export type BatchTriageRequest = z.infer<typeof BatchTriageRequest>;

/** What batch triage answers. */
export const BatchTriageResult = z
  .object({
    matched_count: z.number().int().meta({ description: "Rows the ids or the filter selected" }),
    changed_count: z
      .number()
      .int()
      .meta({ description: "Rows the action changed (an approved row approved again does not count)" }),
    applied_count: z
      .number()
      .int()
      .meta({ description: "Same as changed_count; kept for clients written before matched/changed" }),
    revision: z.number().int(),
    summary: ReviewSummary,
  })
  .meta({ id: "BatchTriageResult" });
/** What batch triage answers. */
export type BatchTriageResult = z.infer<typeof BatchTriageResult>;

/** A rule by saved id, or inline. */
export const RuleRequest = z
  .union([z.object({ rule_id: z.string().min(1) }).strict(), z.object({ rule: ReviewRule }).strict()])
  .meta({ id: "RuleRequest" });
/** A rule by saved id, or inline. */
export type RuleRequest = z.infer<typeof RuleRequest>;

const FieldChange = z.object({ from: z.string(), to: z.string() });

/** What a rule does (preview) or did (apply) to the manifest. */
export const RuleOutcome = z
  .object({
    matched_count: z.number().int(),
    matches: z.array(
      z.object({
        row_id: z.string(),
        changes: z.object({
          category: FieldChange.optional(),
          target_path: FieldChange.optional(),
          action: FieldChange.optional(),
          review_bucket: FieldChange.optional(),
        }),
      }),
    ),
    revision: z
      .number()
      .int()
      .meta({ description: "The manifest revision the outcome is based on (after apply)" }),
  })
  .meta({ id: "RuleOutcome" });
/** What a rule does or did. */
export type RuleOutcome = z.infer<typeof RuleOutcome>;

/** `POST .../review-rules/from-examples`. */
export const FromExamplesRequest = z
  .object({ row_ids: z.array(z.string().min(1)).min(2).max(1000) })
  .meta({ id: "FromExamplesRequest" });

/** A draft rule inferred from examples; not saved. */
export const DraftRuleResult = z
  .object({
    draft: ReviewRule,
    example_row_ids: z.array(z.string()),
    also_matches: z.array(z.string()),
    warnings: z.array(z.string()),
  })
  .meta({ id: "DraftRuleResult" });

/** A learned signal → outcome pair as listed. */
export const LearnedRuleView = z
  .object({
    id: z.string(),
    signal_kind: z.enum(["token", "folder", "extension", "mime"]),
    signal_value: z.string(),
    outcome_field: z.enum(["category", "target_dir"]),
    outcome_value: z.string(),
    count: z.number().int(),
    job_count: z.number().int(),
    strength: z
      .number()
      .meta({ description: "0..1: agreement among outcomes of the signal, grown by count" }),
    suggests: z.boolean().meta({ description: "Whether it is past the threshold that makes suggestions" }),
    updated_at: z.string(),
  })
  .meta({ id: "LearnedRule" });
/** A learned pair as listed. */
export type LearnedRuleView = z.infer<typeof LearnedRuleView>;
