import { z } from "zod";
import { CategoryName } from "./manifest.js";
import { META_CONDITIONS } from "./meta-conditions.js";
import { PathInput } from "./path-input.js";
import { ReviewBucketEnum, type ReviewRowFacts } from "./review-row.js";
import { type LocationBase, locationProblem, locationTest } from "./rule-locations.js";
import { compileConditions } from "./rule-match.js";
import { checkNamingTemplate } from "./template-check.js";

export { compileConditions, dateBoundMs, matchesRule } from "./rule-match.js";

import { UNIT_KINDS } from "./units.js";

/** What a `duplicate` condition asks of a row's place among files with the same content. */
export const DUPLICATE_ROLES = ["any", "original", "copy", "none"] as const;

/** A date bound of a date condition: an ISO date (a whole UTC day) or a date-time with an offset. */
export const DateBound = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
/**
 * One test on a row. `extension`, `mime`, `category`, `bucket` and `reason` match any of the listed values;
 * `date` tests the modification time, `content_date` the file's best date (EXIF, PDF, Office, file name);
 * `unit` whether the row belongs to a folder kept whole (of one of the listed kinds); `exif`, `taken`,
 * `audio` and `text` what the content says (`meta-conditions.ts`).
 */
export const RuleCondition = z
  .discriminatedUnion("field", [
    z.object({ field: z.literal("extension"), in: z.array(z.string().min(1)).min(1) }),
    z.object({ field: z.literal("name_glob"), glob: z.string().min(1) }),
    z.object({
      field: z.literal("name_regex"),
      regex: z.string().min(1),
      flags: z
        .string()
        .regex(/^[imsu]*$/)
        .optional(),
    }),
    z.object({ field: z.literal("path_glob"), glob: z.string().min(1) }),
    z.object({ field: z.literal("mime"), in: z.array(z.string().min(1)).min(1) }),
    z.object({ field: z.literal("category"), in: z.array(z.string().min(1)).min(1) }),
    z.object({
      field: z.literal("size"),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().nonnegative().optional(),
    }),
    z.object({ field: z.literal("date"), from: DateBound.optional(), to: DateBound.optional() }),
    z.object({
      field: z.literal("content_date"),
      from: DateBound.optional(),
      to: DateBound.optional(),
    }),
    z.object({ field: z.literal("reason"), in: z.array(z.string().min(1)).min(1) }),
    z.object({
      field: z.literal("unit"),
      in: z
        .array(z.enum(UNIT_KINDS))
        .min(1)
        .optional()
        .meta({ description: "The unit kinds that match; absent: any unit" }),
      value: z.boolean().default(true).meta({ description: "false: the row belongs to no unit" }),
    }),
    z.object({
      field: z.literal("confidence"),
      min: z.number().min(0).max(1).optional(),
      max: z.number().min(0).max(1).optional(),
    }),
    z.object({ field: z.literal("bucket"), in: z.array(ReviewBucketEnum).min(1) }),
    z.object({ field: z.literal("has_conflict"), value: z.boolean() }),
    z.object({
      field: z.literal("duplicate"),
      role: z.enum(DUPLICATE_ROLES).meta({
        description:
          "any: in a group of files with the same content; original / copy: that group's original or a copy of it; none: in no group",
      }),
    }),
    ...META_CONDITIONS,
  ])
  .superRefine((c, ctx) => {
    if (
      (c.field === "size" || c.field === "confidence") &&
      c.min !== undefined &&
      c.max !== undefined &&
      c.min > c.max
    ) {
      ctx.addIssue({ code: "custom", path: ["min"], message: "min must not be greater than max" });
    }
    if (c.field === "name_regex") {
      try {
        new RegExp(c.regex, c.flags ?? "");
      } catch (err) {
        ctx.addIssue({
          code: "custom",
          path: ["regex"],
          message: `invalid regular expression: ${(err as Error).message}`,
        });
      }
    }
  })
  .meta({ id: "RuleCondition", description: "One test on a manifest row" });
/** One test on a row. */
export type RuleCondition = z.infer<typeof RuleCondition>;

/** Conditions of a rule: every `all` holds, at least one `any` holds (when given), no `none` holds. */
export const RuleConditions = z
  .object({
    all: z.array(RuleCondition).optional(),
    any: z.array(RuleCondition).optional(),
    none: z.array(RuleCondition).optional(),
  })
  .refine((g) => (g.all?.length ?? 0) + (g.any?.length ?? 0) + (g.none?.length ?? 0) > 0, {
    message: "a rule needs at least one condition in all, any or none",
  })
  .meta({ id: "RuleConditions" });
/** The condition groups of a rule. */
export type RuleConditions = z.infer<typeof RuleConditions>;

/** What a matching rule does to a row. `set_target` takes a naming template. */
export const RuleAction = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("set_category"), category: CategoryName }),
    z.object({
      type: z.literal("set_target"),
      template: PathInput.superRefine((t, ctx) => {
        for (const issue of checkNamingTemplate(t))
          ctx.addIssue({ code: "custom", message: `${issue.part}: ${issue.message}` });
      }),
    }),
    z.object({ type: z.literal("skip") }),
    z.object({ type: z.literal("trash") }),
    z.object({ type: z.literal("copy") }),
    z.object({ type: z.literal("approve") }),
  ])
  .meta({ id: "RuleAction" });
/** A rule action. */
export type RuleAction = z.infer<typeof RuleAction>;

/** A review rule as saved and sent: `id` is generated when absent. */
export const ReviewRule = z
  .object({
    id: z.string().min(1).max(100).optional(),
    name: z.string().trim().min(1).max(200),
    enabled: z.boolean().default(true),
    priority: z.number().int().min(-1_000_000).max(1_000_000).default(0),
    stop_further_rules: z.boolean().default(false),
    location: PathInput.superRefine((path, ctx) => {
      const problem = locationProblem(path);
      if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
    })
      .optional()
      .meta({
        description:
          "A folder: the rule only matches rows whose source path is inside it. Absolute, `~/…` (the engine's home directory) or relative to the analyzed folder",
      }),
    conditions: RuleConditions,
    actions: z.array(RuleAction).min(1),
  })
  .meta({ id: "ReviewRule" });
/** A review rule (after defaults). */
export type ReviewRule = z.infer<typeof ReviewRule>;
/** A review rule as written by a client (defaults not yet applied). */
export type ReviewRuleInput = z.input<typeof ReviewRule>;

/** The fields a rule may change on a row. */
export const CHANGEABLE_FIELDS = ["category", "target_path", "action", "review_bucket"] as const;
/** A field a rule may change. */
export type ChangeableField = (typeof CHANGEABLE_FIELDS)[number];

/** One field's change: what it was and what it becomes. */
export interface FieldChange {
  from: string;
  to: string;
}

/** The exact change a rule makes to one row. */
export interface RowChanges {
  row_id: string;
  changes: Partial<Record<ChangeableField, FieldChange>>;
  /** Ids of the rules that matched, in the order they were applied. */
  rule_ids: string[];
}

/** The order rules apply in: higher priority first, then by name and id for stability. */
export function compareRules(
  a: Pick<ReviewRule, "priority" | "name" | "id">,
  b: Pick<ReviewRule, "priority" | "name" | "id">,
): number {
  return b.priority - a.priority || a.name.localeCompare(b.name) || (a.id ?? "").localeCompare(b.id ?? "");
}

/** Orders rules as they apply: enabled only, higher priority first, then by name and id for stability. */
export function orderRules<R extends Pick<ReviewRule, "enabled" | "priority" | "name" | "id">>(
  rules: readonly R[],
): R[] {
  return rules.filter((r) => r.enabled).sort(compareRules);
}

/** Turns a `set_target` template into the row's new target path, or an error message. */
export type RenderTarget = (
  row: ReviewRowFacts,
  template: string,
) => { ok: true; path: string } | { ok: false; message: string };

/** Options for {@link planRules}. */
export interface PlanRulesOptions {
  /** Renders `set_target` templates; rows it refuses are left unchanged for that field. */
  renderTarget: RenderTarget;
  /** The target a new category implies when no rule sets the target (the job's template), if any. */
  retarget?: ((row: ReviewRowFacts, category: string) => string | undefined) | undefined;
  /** Also return matching rows whose fields would not change (with empty `changes`). */
  includeUnchanged?: boolean | undefined;
  /** What rules' relative and `~` locations are resolved against (without it only absolute ones match). */
  locationBase?: LocationBase | undefined;
}

/**
 * Plans what a list of rules does to rows, without changing anything. Rules apply in {@link orderRules}
 * order; conditions are always evaluated against the row as it is (rules never cascade); when several rules
 * set the same field the higher-priority one wins; a matching rule with `stop_further_rules` ends the list
 * for that row. Only rows whose fields really change are returned, each with its `{from, to}` per field.
 * Finished rows (applied, rolled back) are never changed.
 */
export function planRules(
  rows: Iterable<ReviewRowFacts>,
  rules: readonly ReviewRule[],
  options: PlanRulesOptions,
): RowChanges[] {
  const plan = compileRulePlan(rules, options);
  const out: RowChanges[] = [];
  for (const row of rows) {
    const planned = plan(row);
    if (planned !== undefined) out.push(planned);
  }
  return out;
}

/**
 * Compiles rules once into what {@link planRules} does to one row: its changes (`undefined` when no rule
 * changes it, or — with `includeUnchanged` — when none matches). For callers that see rows one at a time
 * (analyze applies strategy-pack and saved rules to each row as it is built).
 */
export function compileRulePlan(
  rules: readonly ReviewRule[],
  options: PlanRulesOptions,
): (row: ReviewRowFacts) => RowChanges | undefined {
  const compiled = orderRules(rules).map((rule) => {
    const conditions = compileConditions(rule.conditions);
    const inside = locationTest(rule.location, options.locationBase);
    return { rule, test: (row: ReviewRowFacts) => inside(row.source_path) && conditions(row) };
  });
  return (row) => {
    if (row.status !== "pending" && row.status !== "failed") return undefined;
    const changes: RowChanges["changes"] = {};
    const ruleIds: string[] = [];
    for (const { rule, test } of compiled) {
      if (!test(row)) continue;
      ruleIds.push(rule.id ?? rule.name);
      for (const action of rule.actions) applyAction(row, action, changes, options);
      if (rule.stop_further_rules) break;
    }
    if (
      changes.category !== undefined &&
      changes.target_path === undefined &&
      options.retarget !== undefined
    ) {
      const to = options.retarget(row, changes.category.to);
      if (to !== undefined) changes.target_path = { from: row.target_path, to };
    }
    const real = Object.fromEntries(
      Object.entries(changes).filter(([, c]) => c !== undefined && c.from !== c.to),
    ) as RowChanges["changes"];
    if (Object.keys(real).length > 0 || (options.includeUnchanged === true && ruleIds.length > 0))
      return { row_id: row.row_id, changes: real, rule_ids: ruleIds };
    return undefined;
  };
}

function applyAction(
  row: ReviewRowFacts,
  action: RuleAction,
  changes: RowChanges["changes"],
  options: PlanRulesOptions,
): void {
  switch (action.type) {
    case "set_category":
      changes.category ??= { from: row.category, to: action.category };
      return;
    case "set_target": {
      if (changes.target_path !== undefined) return;
      // A new category from a higher rule feeds the template.
      const facts = changes.category === undefined ? row : { ...row, category: changes.category.to };
      const rendered = options.renderTarget(facts, action.template);
      if (rendered.ok) changes.target_path = { from: row.target_path, to: rendered.path };
      return;
    }
    case "skip":
      changes.action ??= { from: row.action, to: "skip" };
      return;
    case "trash":
      changes.action ??= { from: row.action, to: "trash" };
      return;
    case "copy":
      changes.action ??= { from: row.action, to: "copy" };
      return;
    case "approve":
      // Blocked and conflicting rows cannot be approved past their problem.
      if (row.review_bucket === "needs_review")
        changes.review_bucket ??= { from: row.review_bucket, to: "auto_safe" };
      return;
  }
}
