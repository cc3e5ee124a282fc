import { lstat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { runTransaction } from "@vetted/store";
import { eq } from "drizzle-orm";
import { CATEGORIES } from "../../domain/manifest.js";
import { ruleNeedsText } from "../../domain/meta-conditions.js";
import {
  type AnalyzeLimits,
  type AnalyzeRuleGroup,
  type AnalyzeRuleSet,
  appliedRuleOf,
  brokenJobLimit,
  limitsOf,
  RULE_REASON_CODES,
} from "../../domain/pack-rules.js";
import { REVIEW_MARKERS } from "../../domain/review-bucket.js";
import type { ReviewRowFacts } from "../../domain/review-row.js";
import { compileRulePlan, type RowChanges } from "../../domain/review-rule.js";
import type { LocationBase } from "../../domain/rule-locations.js";
import { type ParsedTemplate, parseTemplate, pathKey, renderTemplate } from "../../domain/template.js";
import { FileorgError } from "../../errors.js";
import { rows, rowTexts } from "../../store/schema.js";
import { categoryTemplates } from "../categories.js";
import { digestOf, type RowRecord, reviewOf, thresholdOf, toManifestRow } from "../manifest/index.js";
import type { JobRecord } from "../records.js";
import type { FileorgResources } from "../resources.js";
import type { JobRun } from "../run.js";

/** A row as analyze built it, with its text excerpt (stored apart) when it has one. */
type AnalyzedRow = RowRecord & { textExcerpt?: string | undefined };

/** Applies the runtime limits, the strategy pack and the saved rules to each new row (in place). */
export type RowFinisher = (row: AnalyzedRow, files: number, bytes: number) => Promise<void>;

/** The finisher of an analyze, and whether one of its rules tests a file's text (then PDFs' text is read). */
export interface PreparedFinisher {
  finish: RowFinisher;
  readsText: boolean;
}

/** What the finisher needs of the analyze plan. */
export interface FinisherPlan {
  outputDir: string;
  template: ParsedTemplate;
  files?: readonly string[] | undefined;
  /** Whether each target folder exists (shared with the row builder). */
  directories?: Map<string, Promise<boolean>> | undefined;
}

interface CompiledGroup {
  group: AnalyzeRuleGroup;
  plan: (row: ReviewRowFacts) => RowChanges | undefined;
  applied: Map<string, ReturnType<typeof appliedRuleOf>>;
}

function limitError(broken: NonNullable<ReturnType<typeof brokenJobLimit>>): FileorgError {
  const what = broken.limit === "max_files_per_job" ? "files" : "bytes";
  return new FileorgError(
    "JOB_LIMIT_EXCEEDED",
    `The analyze stopped: it reached ${broken.actual} ${what}, over the runtime limit ${broken.limit} = ${broken.value}. Raise the limit in the runtime settings or analyze a smaller folder.`,
    { limit: broken.limit, value: broken.value, actual: broken.actual },
  );
}

/** Whether another file occupies `target` (folders checked once each, through the shared cache). */
async function isOccupied(target: string, row: RowRecord, dirs: Map<string, Promise<boolean>>) {
  if (target === row.sourcePath) return false;
  const dir = dirname(target);
  let exists = dirs.get(dir);
  if (exists === undefined) {
    exists = lstat(dir).then(
      () => true,
      () => false,
    );
    dirs.set(dir, exists);
  }
  if (!(await exists)) return false;
  try {
    const t = await lstat(target);
    return !(t.ino === row.sourceIno && t.dev === row.sourceDev);
  } catch {
    return false;
  }
}

function factsOfRow(row: AnalyzedRow): ReviewRowFacts {
  const { job_id: _j, conflict_ids: _c, applied_rules: _a, ...rest } = toManifestRow(row);
  return { ...rest, has_conflict: false, text: row.textExcerpt };
}

/** The target renderers rules use at analyze: a rule's own template, and retargeting on a new category. */
function renderersOf(plan: FinisherPlan, byCategory: ReadonlyMap<string, ParsedTemplate>) {
  const parsed = new Map<string, ParsedTemplate | string>();
  const render = (row: ReviewRowFacts, template: ParsedTemplate, category: string) =>
    join(
      plan.outputDir,
      renderTemplate(template, {
        category,
        mtime: row.mtime,
        fileName: basename(row.source_path),
        sha256: row.sha256,
        meta: row.meta,
        unitRoot: row.unit?.root,
      }),
    );
  return {
    renderTarget: (row: ReviewRowFacts, template: string) => {
      let p = parsed.get(template);
      if (p === undefined) {
        const r = parseTemplate(template);
        p = r.ok ? r.template : r.message;
        parsed.set(template, p);
      }
      if (typeof p === "string") return { ok: false as const, message: p };
      return { ok: true as const, path: render(row, p, row.category) };
    },
    retarget: (row: ReviewRowFacts, category: string) =>
      render(row, byCategory.get(category) ?? plan.template, category),
  };
}

/** Points a row at a new target: its key, whether it is already in place, whether it is occupied. */
async function settleTarget(row: RowRecord, target: string, dirs: Map<string, Promise<boolean>>) {
  row.targetPath = target;
  row.targetKey = pathKey(target);
  const inPlace = target === row.sourcePath;
  const wasInPlace = row.reasonCodes.includes("ALREADY_IN_PLACE");
  if (inPlace && !wasInPlace) {
    row.action = "skip";
    row.reasonCodes.push("ALREADY_IN_PLACE");
  } else if (!inPlace && wasInPlace) {
    row.action = "move";
    row.reasonCodes = row.reasonCodes.filter((c) => c !== "ALREADY_IN_PLACE");
  }
  row.targetOccupied = inPlace ? false : await isOccupied(target, row, dirs);
}

/** Applies one group's planned changes to the row; answers whether any rule of the group matched. */
async function applyGroup(
  row: AnalyzedRow,
  compiled: CompiledGroup,
  dirs: Map<string, Promise<boolean>>,
): Promise<boolean> {
  const planned = compiled.plan(factsOfRow(row));
  if (planned === undefined) return false;
  const { changes } = planned;
  if (changes.category !== undefined) row.category = changes.category.to;
  if (changes.target_path !== undefined) await settleTarget(row, changes.target_path.to, dirs);
  if (changes.action !== undefined) {
    const to = changes.action.to;
    row.action = to === "skip" || to === "trash" || to === "copy" ? to : "move";
    if (row.action === "skip" && !row.reasonCodes.includes(REVIEW_MARKERS.skipChosen))
      row.reasonCodes.push(REVIEW_MARKERS.skipChosen);
  }
  if (changes.review_bucket?.to === "auto_safe" && !row.reasonCodes.includes(REVIEW_MARKERS.approved))
    row.reasonCodes.push(REVIEW_MARKERS.approved);
  for (const id of planned.rule_ids) {
    const applied = compiled.applied.get(id);
    if (applied !== undefined) row.appliedRules = [...row.appliedRules, applied];
  }
  const code = RULE_REASON_CODES[compiled.group.source];
  if (!row.reasonCodes.includes(code)) row.reasonCodes.push(code);
  return true;
}

function blockTooLarge(row: RowRecord, max: number): void {
  row.blocked = true;
  row.action = "skip";
  row.targetOccupied = false;
  row.error = {
    code: RULE_REASON_CODES.fileTooLarge,
    message: `The file is ${row.size} bytes, over the runtime limit max_file_bytes = ${max}.`,
  };
  if (!row.reasonCodes.includes(RULE_REASON_CODES.fileTooLarge))
    row.reasonCodes.push(RULE_REASON_CODES.fileTooLarge);
}

/** Files a built-in category the pack does not sort into as `other`, retargeted. */
async function applyPackCategories(
  row: AnalyzedRow,
  set: AnalyzeRuleSet,
  retarget: (row: ReviewRowFacts, category: string) => string,
  dirs: Map<string, Promise<boolean>>,
): Promise<boolean> {
  const cats = set.packCategories;
  if (cats === undefined || cats.length === 0 || cats.includes(row.category)) return false;
  if (!(CATEGORIES as readonly string[]).includes(row.category) || row.category === "other") return false;
  row.category = "other";
  row.reasonCodes.push(RULE_REASON_CODES.packCategory);
  await settleTarget(row, retarget(factsOfRow(row), "other"), dirs);
  return true;
}

function compileGroups(
  set: AnalyzeRuleSet | undefined,
  renderers: ReturnType<typeof renderersOf>,
  locationBase: LocationBase,
) {
  return (set?.groups ?? []).map((group) => ({
    group,
    plan: compileRulePlan(group.rules, { ...renderers, includeUnchanged: true, locationBase }),
    applied: new Map(group.rules.map((r) => [r.id ?? r.name, appliedRuleOf(r, group)])),
  }));
}

/**
 * Prepares what analyze does to each row after the classifier: the job-level limits (JOB_LIMIT_EXCEEDED
 * naming the limit), `max_file_bytes` (the row blocked with FILE_TOO_LARGE), the strategy pack's categories
 * and `default_rules`, then the saved review rules (review's `analyzeRules` hook, given at construction).
 * Rows are changed in memory before they are stored — no query per row; only a retargeted row costs a
 * `lstat` of its target.
 */
export async function prepareRowFinisher(
  res: FileorgResources,
  job: JobRecord,
  plan: FinisherPlan,
): Promise<PreparedFinisher> {
  const limits: AnalyzeLimits = limitsOf(job.params);
  if (plan.files !== undefined) {
    const broken = brokenJobLimit(limits, plan.files.length, 0);
    if (broken !== undefined) throw limitError(broken);
  }
  const set = await res.hooks.analyzeRules?.(job);
  const hasRules = (set?.groups ?? []).some((g) => g.rules.length > 0) || set?.packCategories !== undefined;
  const byCategory = hasRules ? await categoryTemplates(res.ctx.db) : new Map<string, ParsedTemplate>();
  const renderers = renderersOf(plan, byCategory);
  const groups = compileGroups(set, renderers, {
    root: String(job.params.source_dir ?? ""),
    home: homedir(),
  });
  const threshold = thresholdOf(job);
  const dirs = plan.directories ?? new Map<string, Promise<boolean>>();
  const readsText = (set?.groups ?? []).some((g) => g.rules.some((r) => ruleNeedsText(r.conditions)));
  const finish: RowFinisher = async (row, files, bytes) => {
    const broken = brokenJobLimit(limits, files, bytes);
    if (broken !== undefined) throw limitError(broken);
    let changed = false;
    if (limits.max_file_bytes !== undefined && row.size > limits.max_file_bytes && !row.blocked) {
      blockTooLarge(row, limits.max_file_bytes);
      changed = true;
    }
    // A unit is planned as a whole: no rule moves one of its files elsewhere (split the unit first).
    if (!row.blocked && row.unitId === null && set !== undefined) {
      changed = (await applyPackCategories(row, set, renderers.retarget, dirs)) || changed;
      if (changed) Object.assign(row, reviewOf(row, threshold));
      for (const group of groups) {
        if (!(await applyGroup(row, group, dirs))) continue;
        changed = true;
        // The next list's conditions (and its approvals) see the bucket this list left.
        Object.assign(row, reviewOf(row, threshold));
      }
    }
    if (!changed) return;
    Object.assign(row, reviewOf(row, threshold));
    row.planDigest = digestOf(row);
  };
  return { finish, readsText };
}

/** The `workers` runtime setting an analyze job's parameters carry (rows built concurrently), if valid. */
export function workersOf(params: Record<string, unknown>): number | undefined {
  const w = params.workers;
  return typeof w === "number" && Number.isInteger(w) && w >= 1 && w <= 64 ? w : undefined;
}

/**
 * Runs the scan; when it stops on a job-level limit, removes the rows it already stored (batches of 5,000
 * may have been written before the limit was reached), so a stopped analyze leaves no partial manifest.
 */
export async function discardingRowsOnLimit<T>(run: JobRun, scan: () => Promise<T>): Promise<T> {
  try {
    return await scan();
  } catch (err) {
    if (err instanceof FileorgError && err.code === "JOB_LIMIT_EXCEEDED") {
      await runTransaction(run.ctx.db, async (tx) => {
        await tx.delete(rows).where(eq(rows.jobId, run.job.id));
        await tx.delete(rowTexts).where(eq(rowTexts.jobId, run.job.id));
      });
    }
    throw err;
  }
}
