import { homedir } from "node:os";
import { join } from "node:path";
import { and, asc, eq, or, type SQL } from "drizzle-orm";
import { categoriesOfRule } from "../../domain/categories.js";
import { renderedFileName } from "../../domain/content-check.js";
import type { Actor } from "../../domain/job.js";
import { ruleNeedsText } from "../../domain/meta-conditions.js";
import type { RuleOutcome, RuleRequest } from "../../domain/review-api.js";
import { REVIEW_MARKERS } from "../../domain/review-bucket.js";
import type { ReviewRowFacts } from "../../domain/review-row.js";
import { planRules, type ReviewRule, type RowChanges } from "../../domain/review-rule.js";
import { type DraftRule, draftRuleFromExamples } from "../../domain/rule-inference.js";
import type { LocationBase } from "../../domain/rule-locations.js";
import { type ParsedTemplate, parseTemplate, renderTemplate } from "../../domain/template.js";
import { FileorgError, NotFoundError } from "../../errors.js";
import { ReviewError } from "../../review-errors.js";
import { rulePrefilter } from "../../store/review-queries.js";
import { conflicts, rows, rowTexts } from "../../store/schema.js";
import { assertKnownCategories, categoryTemplates } from "../categories.js";
import {
  type InternalPatch,
  loadRows,
  type RowRecord,
  requireManifestJob,
  thresholdOf,
  verdictOf,
} from "../manifest/index.js";
import type { JobRecord } from "../records.js";
import { type ReviewResources, toFacts } from "./resources.js";
import { assertExpectedRevision, type RevisionOptions } from "./revision-guard.js";

/** A planned row change, and whether it approves the row. */
export type PlannedRow = RowChanges & { approve: boolean };

/** Each row of a job's duplicate groups (open or resolved) and its place: the group's original or a copy. */
async function duplicateRoles(
  res: ReviewResources,
  jobId: string,
): Promise<Map<string, "original" | "copy">> {
  const groups = await res.db
    .select({ rowIds: conflicts.rowIds, original: conflicts.original })
    .from(conflicts)
    .where(and(eq(conflicts.jobId, jobId), eq(conflicts.kind, "duplicate_content")));
  const roles = new Map<string, "original" | "copy">();
  for (const g of groups)
    for (const id of g.rowIds) roles.set(id, id === g.original?.row_id ? "original" : "copy");
  return roles;
}

/** The text excerpts of the rows `where` selects (only asked for when a rule tests `text`). */
async function textsOf(res: ReviewResources, jobId: string, where: SQL | undefined) {
  const found = await res.db
    .select({ rowId: rowTexts.rowId, excerpt: rowTexts.excerpt })
    .from(rowTexts)
    .innerJoin(rows, eq(rows.id, rowTexts.rowId))
    .where(and(eq(rowTexts.jobId, jobId), where));
  return new Map(found.map((t) => [t.rowId, t.excerpt]));
}

/** Loads rows of a job as rule facts; `where` narrows them (it must include the job). */
async function loadFacts(
  res: ReviewResources,
  jobId: string,
  where: SQL | undefined = eq(rows.jobId, jobId),
  withText = false,
): Promise<{ facts: ReviewRowFacts[]; records: Map<string, RowRecord> }> {
  const all = await res.db.select().from(rows).where(where).orderBy(asc(rows.seq));
  const roles = await duplicateRoles(res, jobId);
  const texts = withText ? await textsOf(res, jobId, where) : new Map<string, string>();
  const facts = all.map((r) => {
    const role = roles.get(r.id);
    const text = texts.get(r.id);
    const f = text === undefined ? toFacts(r) : { ...toFacts(r), text };
    return role === undefined ? f : { ...f, duplicate: role };
  });
  return { facts, records: new Map(all.map((r) => [r.id, r])) };
}

async function resolveRule(res: ReviewResources, request: RuleRequest): Promise<ReviewRule> {
  if ("rule" in request) {
    // An inline rule may set or test any known category, built in or custom (CATEGORY_UNKNOWN otherwise).
    await assertKnownCategories(res.db, categoriesOfRule(request.rule));
    return request.rule;
  }
  try {
    return await res.preferences.get("review-rules", request.rule_id);
  } catch {
    throw new ReviewError("REVIEW_RULE_NOT_FOUND", `No saved review rule ${request.rule_id}.`, {
      rule_id: request.rule_id,
    });
  }
}

/** The target renderers of a rule plan: a rule's own template, and retargeting on a new category. */
function renderersOf(
  job: JobRecord,
  records: ReadonlyMap<string, RowRecord>,
  byCategory: ReadonlyMap<string, ParsedTemplate>,
) {
  const outputDir = String(job.params.output_dir ?? "");
  const jobTemplate = parseTemplate(String(job.params.naming_template ?? ""));
  const templates = new Map<string, ParsedTemplate | string>();
  const render = (row: ReviewRowFacts, template: ParsedTemplate, category: string) =>
    join(
      outputDir,
      renderTemplate(template, {
        category,
        mtime: row.mtime,
        date: row.date,
        fileName: renderedFileName(row.source_path, row.target_path, row.reason_codes),
        sha256: row.sha256,
        sourcePath: row.source_path,
        sourceRoot: String(job.params.source_dir ?? ""),
        meta: row.meta,
        unitRoot: row.unit?.root,
      }),
    );
  return {
    renderTarget: (row: ReviewRowFacts, template: string) => {
      let parsed = templates.get(template);
      if (parsed === undefined) {
        const p = parseTemplate(template);
        parsed = p.ok ? p.template : p.message;
        templates.set(template, parsed);
      }
      if (typeof parsed === "string") return { ok: false as const, message: parsed };
      return { ok: true as const, path: render(row, parsed, row.category) };
    },
    retarget: (row: ReviewRowFacts, category: string) => {
      if (records.get(row.row_id)?.targetEdited !== false) return undefined;
      // A custom category with a target template of its own renders with it.
      const template = byCategory.get(category) ?? (jobTemplate.ok ? jobTemplate.template : undefined);
      return template === undefined ? undefined : render(row, template, category);
    },
  };
}

/** A planned change with the bucket the core will compute (conflicts it may open or close not foreseen). */
function predictBucket(p: RowChanges, r: RowRecord, threshold: number): PlannedRow {
  const approve = p.changes.review_bucket?.to === "auto_safe";
  // A rule's changes are not a person's edits: they neither mark the row edited nor withdraw its approval.
  const approvedAfter = approve || r.reasonCodes.includes(REVIEW_MARKERS.approved);
  const reasonCodes = r.reasonCodes.filter((c) => c !== REVIEW_MARKERS.approved);
  if (approvedAfter) reasonCodes.push(REVIEW_MARKERS.approved);
  const action = (p.changes.action?.to as RowRecord["action"] | undefined) ?? r.action;
  if (p.changes.action?.to === "skip") reasonCodes.push(REVIEW_MARKERS.skipChosen);
  const predicted = verdictOf({ ...r, action, reasonCodes }, threshold).bucket;
  const changes = { ...p.changes };
  if (predicted !== r.reviewBucket) changes.review_bucket = { from: r.reviewBucket, to: predicted };
  else delete changes.review_bucket;
  return { ...p, changes, approve };
}

/**
 * Plans rules over a job: the matched rows, their exact field changes (all rules together, as
 * {@link planRules} combines them), which rules matched each row, and which rows they approve.
 */
export async function planRuleSet(res: ReviewResources, jobId: string, ruleSet: readonly ReviewRule[]) {
  const job = await requireManifestJob(res.db, jobId);
  if (job.status !== "succeeded") {
    throw new FileorgError("JOB_NOT_READY", `The manifest of ${jobId} is not ready (job is ${job.status}).`, {
      job_id: jobId,
      status: job.status,
    });
  }
  // SQL narrows the rows the rules can match; the rules themselves are then evaluated exactly.
  const filters = ruleSet.map((r) => rulePrefilter(jobId, r.conditions));
  const withText = ruleSet.some((r) => ruleNeedsText(r.conditions));
  const where = filters.length === 1 ? filters[0] : or(...filters);
  const { facts, records } = await loadFacts(res, jobId, where, withText);
  const renderers = renderersOf(job, records, await categoryTemplates(res.db));
  const planned = planRules(facts, ruleSet, {
    ...renderers,
    includeUnchanged: true,
    locationBase: locationBaseOf(job),
  });
  const threshold = thresholdOf(job);
  const out: PlannedRow[] = [];
  for (const p of planned) {
    const r = records.get(p.row_id);
    if (r !== undefined) out.push(predictBucket(p, r, threshold));
  }
  return { job, planned: out, records };
}

/** What rules' relative and `~` locations mean for a job: its analyzed folder, this process's home. */
export function locationBaseOf(job: JobRecord): LocationBase {
  return { root: String(job.params.source_dir ?? ""), home: homedir() };
}

/** Plans one rule (saved, by id, or inline) over a job. */
async function planRule(res: ReviewResources, jobId: string, request: RuleRequest) {
  const rule = await resolveRule(res, request);
  return { rule, ...(await planRuleSet(res, jobId, [rule])) };
}

/** The rows a rule (saved, by id, or inline) matches and the exact change per row; saves nothing. */
export async function previewRule(
  res: ReviewResources,
  jobId: string,
  request: RuleRequest,
): Promise<RuleOutcome> {
  const { job, planned } = await planRule(res, jobId, request);
  return {
    matched_count: planned.length,
    matches: planned.map((p) => ({ row_id: p.row_id, changes: p.changes })),
    revision: job.revision ?? 0,
  };
}

function patchOf(p: PlannedRow): InternalPatch {
  const patch: InternalPatch = {};
  if (p.changes.category !== undefined) patch.category = p.changes.category.to;
  if (p.changes.target_path !== undefined) patch.target_path = p.changes.target_path.to;
  if (p.changes.action !== undefined) patch.action = p.changes.action.to as RowRecord["action"];
  if (p.approve) patch.approved = true;
  return patch;
}

/**
 * Applies a rule to the manifest as one atomic, audited revision; answers what changed.
 * `options.expectedRevision` (HTTP `If-Match`) refuses a stale manifest with REVISION_MISMATCH.
 */
export async function applyRule(
  res: ReviewResources,
  jobId: string,
  request: RuleRequest,
  actor: Actor,
  options: RevisionOptions = {},
): Promise<RuleOutcome> {
  const { job, rule, planned } = await planRule(res, jobId, request);
  const outcome = await applyPlanned(res, job, planned, actor, options, {
    action: "review.rule_apply",
    subject: rule.id ?? rule.name,
    after: { rule },
  });
  return {
    matched_count: outcome.matched_count,
    matches: outcome.matches.map(({ row_id, changes }) => ({ row_id, changes })),
    revision: outcome.revision,
  };
}

/** What applying planned rules did: each matched row, its changes and the rules that matched it. */
export interface AppliedRuleSet {
  matched_count: number;
  matches: Array<{ row_id: string; changes: RowChanges["changes"]; rule_ids: string[] }>;
  revision: number;
}

/**
 * Writes planned rule changes as one atomic, audited patch batch — the one path every rule application
 * takes (a rule of the API, the rules of a rules file). A rule's changes are not a person's edits.
 */
export async function applyPlanned(
  res: ReviewResources,
  job: JobRecord,
  planned: readonly PlannedRow[],
  actor: Actor,
  options: RevisionOptions,
  audit: { action: string; subject: string; after: Record<string, unknown> },
): Promise<AppliedRuleSet> {
  const jobId = job.id;
  const ops = planned
    .map((p) => ({ row_id: p.row_id, patch: patchOf(p) }))
    .filter((op) => Object.keys(op.patch).length > 0);
  if (ops.length === 0) {
    assertExpectedRevision(job, options.expectedRevision);
    return {
      matched_count: planned.length,
      matches: planned.map((p) => ({ row_id: p.row_id, changes: {}, rule_ids: p.rule_ids })),
      revision: job.revision ?? 0,
    };
  }
  const result = await res.fileorg.applyPatches(jobId, ops, {
    expectedRevision: options.expectedRevision,
    actor: actor.actor,
    requestId: actor.requestId,
    auditAction: "review.rule_applied",
    personEdit: false,
    extraAudit: [
      {
        jobId,
        actor: actor.actor,
        requestId: actor.requestId ?? null,
        action: audit.action,
        subject: audit.subject,
        before: null,
        after: { ...audit.after, rows: ops.length },
      },
    ],
  });
  const after = new Map(result.items.map((r) => [r.row_id, r]));
  const stored = await loadRows(
    res.db,
    jobId,
    planned.map((p) => p.row_id),
  );
  const records = new Map(stored.map((r) => [r.id, r]));
  const matches = planned.map((p) => {
    const changes = { ...p.changes };
    // Report the bucket the row really landed in (conflicts may have opened or closed).
    const bucket = after.get(p.row_id)?.review_bucket ?? records.get(p.row_id)?.reviewBucket;
    if (changes.review_bucket !== undefined && bucket !== undefined)
      changes.review_bucket = { ...changes.review_bucket, to: bucket };
    return { row_id: p.row_id, changes, rule_ids: p.rule_ids };
  });
  return { matched_count: planned.length, matches, revision: result.revision };
}

/** Drafts a rule from two or more example rows of a job; the draft is not saved. */
export async function draftFromExamples(
  res: ReviewResources,
  jobId: string,
  rowIds: readonly string[],
): Promise<DraftRule> {
  const job = await requireManifestJob(res.db, jobId);
  const outputDir = String(job.params.output_dir ?? "");
  const ids = [...new Set(rowIds)];
  const found = new Map((await loadRows(res.db, jobId, ids)).map((r) => [r.id, toFacts(r)]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${jobId}.`, {
      row_ids: missing,
    });
  }
  const examples = ids.map((id) => found.get(id)).filter((f): f is ReviewRowFacts => f !== undefined);
  // Draft first, then look for further matches among the rows SQL says the draft can match.
  const { draft } = draftRuleFromExamples(examples, [], outputDir);
  const { facts } = await loadFacts(res, jobId, rulePrefilter(jobId, draft.conditions));
  return draftRuleFromExamples(examples, facts, outputDir);
}
