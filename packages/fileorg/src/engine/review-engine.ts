import { basename, join, posix } from "node:path";
import { and, asc, desc, eq, inArray, or, type SQL, sql } from "drizzle-orm";
import type { InboxFile } from "../domain/inbox-batch.js";
import type { Actor, Job } from "../domain/job.js";
import {
  boostConfidence,
  DEFAULT_LEARNING,
  indexLearned,
  isPastThreshold,
  type LearnedIndex,
  type LearnedRule,
  type LearningOptions,
  type OutcomeField,
  outcomesOfEdit,
  type SignalKind,
  signalsOf,
  strengthOf,
  suggestFor,
} from "../domain/learned-signals.js";
import { REVIEW_BUCKETS, type ReviewBucket } from "../domain/manifest.js";
import type {
  BatchTriageRequest,
  BatchTriageResult,
  LearnedRuleView,
  ReviewQueuePage,
  ReviewQueueQuery,
  ReviewQueueRow,
  ReviewSummary,
  RuleOutcome,
  RuleRequest,
} from "../domain/review-api.js";
import { REVIEW_MARKERS } from "../domain/review-bucket.js";
import { labelReason } from "../domain/review-priority.js";
import type { ReviewRowFacts } from "../domain/review-row.js";
import { planRules, type ReviewRule, type RowChanges } from "../domain/review-rule.js";
import { type DraftRule, draftRuleFromExamples } from "../domain/rule-inference.js";
import { findStrategyPack } from "../domain/strategy-packs.js";
import { type ParsedTemplate, parseTemplate, renderTemplate } from "../domain/template.js";
import { FileorgError, NotFoundError } from "../errors.js";
import { ReviewError } from "../review-errors.js";
import { rulePrefilter } from "../store/review-queries.js";
import { learnedRules } from "../store/review-schema.js";
import { rows } from "../store/schema.js";
import { chunk, type Database, runTransaction } from "./db.js";
import type { FileorgEngine } from "./engine.js";
import {
  type InternalPatch,
  loadRows,
  type RowRecord,
  type RowsEdited,
  requireManifestJob,
  thresholdOf,
  toManifestRow,
  verdictOf,
} from "./manifest.js";
import type { PreferencesEngine, Stored } from "./preferences-engine.js";
import type { JobRecord } from "./records.js";
import { type Clock, type IdGenerator, randomIds } from "./review-ids.js";

/** What the review engine is built from. */
export interface ReviewEngineOptions {
  /** The same database the core engine was given. */
  db: Database;
  fileorg: FileorgEngine;
  preferences: PreferencesEngine;
  clock?: Clock;
  ids?: IdGenerator;
  learning?: LearningOptions;
}

/** Edits a person makes directly, which learning records (rule applications and conflict renames are not). */
const LEARN_FROM: ReadonlySet<string> = new Set(["row.edited", "review.triage"]);
const QUEUE_BUCKETS: readonly ReviewBucket[] = ["blocked", "conflict", "needs_review"];

interface QueueCursor {
  bucket: number;
  confidence: number;
  seq: number;
}

function encodeCursor(c: QueueCursor): string {
  return Buffer.from(`${c.bucket}:${c.confidence}:${c.seq}`).toString("base64url");
}

function decodeCursor(cursor: string | undefined): QueueCursor | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const [b, c, s] = Buffer.from(cursor, "base64url").toString("utf8").split(":").map(Number);
  if (b === undefined || c === undefined || s === undefined || ![b, c, s].every(Number.isFinite))
    return undefined;
  return { bucket: b, confidence: c, seq: s };
}

function reasonFilter(reason: string): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${rows.reasonCodes}) WHERE value = ${reason})`;
}

function toFacts(r: RowRecord): ReviewRowFacts {
  const { job_id: _job, conflict_ids: _conflicts, ...row } = toManifestRow(r);
  return { ...row, has_conflict: r.conflictIds.length > 0 };
}

/**
 * Review of an analyze job's manifest: the prioritized queue with its summary, batch triage, review rules
 * (preview, apply, draft from examples), and learning from a person's edits (suggestions on new rows, never
 * applied silently). Every change goes through the core's atomic, audited patch batch; nothing touches disk.
 * Creating the engine registers its hooks on the core engine (analyze parameters and row adjustment,
 * edit listener).
 */
export function createReviewEngine(options: ReviewEngineOptions) {
  const { fileorg, preferences } = options;
  const { db } = options;
  const clock = options.clock ?? Date.now;
  const ids = options.ids ?? randomIds;
  const learning = options.learning ?? DEFAULT_LEARNING;
  const summaries = new Map<string, { revision: number; summary: ReviewSummary }>();
  let learnedCache: { version: number; index: LearnedIndex } | undefined;
  let learnedVersion = 0;

  async function learnedIndex(): Promise<LearnedIndex> {
    if (learnedCache?.version === learnedVersion) return learnedCache.index;
    const version = learnedVersion;
    const all = await db.select().from(learnedRules);
    const index = indexLearned(all.map(toLearned));
    learnedCache = { version, index };
    return index;
  }

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

  async function recordEdits(event: RowsEdited): Promise<void> {
    if (!LEARN_FROM.has(event.auditAction)) return;
    const now = clock();
    const pairs: Array<{ kind: string; value: string; field: string; outcome: string }> = [];
    for (const { before, after } of event.edits) {
      const outcomes = outcomesOfEdit(before, after, event.outputDir);
      if (outcomes.length === 0) continue;
      for (const s of signalsOf(before)) {
        for (const o of outcomes)
          pairs.push({ kind: s.kind, value: s.value, field: o.field, outcome: o.value });
      }
    }
    if (pairs.length === 0) return;
    await runTransaction(db, async (tx) => {
      for (const part of chunk(pairs, 200)) {
        for (const p of part) {
          await tx
            .insert(learnedRules)
            .values({
              id: ids("lrn"),
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
    learnedVersion += 1;
  }

  fileorg.onRowsEdited(recordEdits);
  fileorg.onAnalyzeParams(async () => {
    const runtime = await preferences.runtimeSettings();
    const pack = await preferences.activeStrategyPack();
    return {
      strategy_pack_id: pack.id,
      confidence_threshold: pack.confidence_threshold,
      naming_template: runtime.default_naming_template,
      ...(runtime.default_output_root === null ? {} : { output_dir: runtime.default_output_root }),
    };
  });
  fileorg.onAnalyzeRows(async (job) => {
    const index = await learnedIndex();
    if (index.bySignal.size === 0) return undefined;
    const outputDir = String(job.params.output_dir ?? "");
    return (row) => {
      const suggestions = suggestFor(
        { source_path: row.sourcePath, mime: row.mime, category: row.category, target_path: row.targetPath },
        index,
        outputDir,
        learning,
      );
      if (suggestions.length === 0) return undefined;
      const disagrees = suggestions.some((s) => !s.agrees);
      return {
        confidence: boostConfidence(row.confidence, suggestions),
        reasonCodes: disagrees ? [REVIEW_MARKERS.learnedDisagrees] : [REVIEW_MARKERS.learnedAgrees],
      };
    };
  });

  async function summaryOf(jobId: string, known?: JobRecord): Promise<ReviewSummary> {
    const job = known ?? (await requireManifestJob(db, jobId));
    const cached = summaries.get(jobId);
    const cacheable = job.status === "succeeded" && job.revision !== null;
    if (cacheable && cached !== undefined && cached.revision === job.revision) return cached.summary;
    const counts = await db
      .select({ bucket: rows.reviewBucket, n: sql<number>`count(*)` })
      .from(rows)
      .where(eq(rows.jobId, jobId))
      .groupBy(rows.reviewBucket);
    const buckets = { blocked: 0, conflict: 0, needs_review: 0, auto_safe: 0 };
    for (const c of counts) buckets[c.bucket] = Number(c.n);
    const reasons = await db.all<{ code: string; n: number }>(
      sql`SELECT j.value AS code, count(*) AS n FROM ${rows}, json_each(${rows.reasonCodes}) AS j
          WHERE ${rows.jobId} = ${jobId} AND ${rows.reviewBucket} != 'auto_safe'
          GROUP BY j.value ORDER BY n DESC, code LIMIT 8`,
    );
    const summary: ReviewSummary = {
      total: buckets.blocked + buckets.conflict + buckets.needs_review + buckets.auto_safe,
      needing_attention: buckets.blocked + buckets.conflict + buckets.needs_review,
      buckets,
      top_reasons: reasons.map((r) => ({ code: r.code, label: labelReason(r.code), count: Number(r.n) })),
    };
    if (cacheable && job.revision !== null) summaries.set(jobId, { revision: job.revision, summary });
    return summary;
  }

  async function toQueueRows(job: JobRecord, records: RowRecord[]): Promise<ReviewQueueRow[]> {
    const outputDir = String(job.params.output_dir ?? "");
    const index = await learnedIndex();
    return records.map((r) => {
      const row = toManifestRow(r);
      return {
        ...row,
        reasons: row.reason_codes.map((code) => ({ code, label: labelReason(code) })),
        suggestions: suggestFor(row, index, outputDir, learning),
      };
    });
  }

  /** Loads rows of a job as rule facts; `where` narrows them (it must include the job). */
  async function loadFacts(
    jobId: string,
    where: SQL | undefined = eq(rows.jobId, jobId),
  ): Promise<{ facts: ReviewRowFacts[]; records: Map<string, RowRecord> }> {
    const all = await db.select().from(rows).where(where).orderBy(asc(rows.seq));
    return { facts: all.map(toFacts), records: new Map(all.map((r) => [r.id, r])) };
  }

  async function resolveRule(request: RuleRequest): Promise<ReviewRule> {
    if ("rule" in request) return request.rule;
    try {
      return await preferences.get("review-rules", request.rule_id);
    } catch {
      throw new ReviewError("REVIEW_RULE_NOT_FOUND", `No saved review rule ${request.rule_id}.`, {
        rule_id: request.rule_id,
      });
    }
  }

  /** Plans a rule over a job: the changed rows, their exact field changes, and which ones it approves. */
  async function planRule(jobId: string, request: RuleRequest) {
    const job = await requireManifestJob(db, jobId);
    if (job.status !== "succeeded") {
      throw new FileorgError(
        "JOB_NOT_READY",
        `The manifest of ${jobId} is not ready (job is ${job.status}).`,
        {
          job_id: jobId,
          status: job.status,
        },
      );
    }
    const rule = await resolveRule(request);
    const outputDir = String(job.params.output_dir ?? "");
    const jobTemplate = parseTemplate(String(job.params.naming_template ?? ""));
    const templates = new Map<string, ParsedTemplate | string>();
    // SQL narrows the rows the rule can match; the rule itself is then evaluated exactly.
    const { facts, records } = await loadFacts(jobId, rulePrefilter(jobId, rule.conditions));
    const render = (row: ReviewRowFacts, template: ParsedTemplate, category: string) =>
      join(
        outputDir,
        renderTemplate(template, {
          category,
          mtime: row.mtime,
          fileName: basename(row.source_path),
          sha256: row.sha256,
        }),
      );
    const planned = planRules(facts, [rule], {
      renderTarget: (row, template) => {
        let parsed = templates.get(template);
        if (parsed === undefined) {
          const p = parseTemplate(template);
          parsed = p.ok ? p.template : p.message;
          templates.set(template, parsed);
        }
        if (typeof parsed === "string") return { ok: false, message: parsed };
        return { ok: true, path: render(row, parsed, row.category) };
      },
      retarget: (row, category) =>
        records.get(row.row_id)?.targetEdited === false && jobTemplate.ok
          ? render(row, jobTemplate.template, category)
          : undefined,
      includeUnchanged: true,
    });
    const threshold = thresholdOf(job);
    const out: Array<RowChanges & { approve: boolean }> = [];
    for (const p of planned) {
      const r = records.get(p.row_id);
      if (r === undefined) continue;
      const approve = p.changes.review_bucket?.to === "auto_safe";
      const edits =
        p.changes.category !== undefined ||
        p.changes.target_path !== undefined ||
        p.changes.action !== undefined;
      const approvedBefore = r.reasonCodes.includes(REVIEW_MARKERS.approved);
      const approvedAfter = approve || (approvedBefore && !edits);
      const reasonCodes = r.reasonCodes.filter((c) => c !== REVIEW_MARKERS.approved);
      if (approvedAfter) reasonCodes.push(REVIEW_MARKERS.approved);
      // Predicts the bucket the core will compute (conflicts the change may open or close are not foreseen).
      const predicted = verdictOf(
        {
          ...r,
          action: (p.changes.action?.to as RowRecord["action"] | undefined) ?? r.action,
          edited: r.edited || edits,
          reasonCodes,
        },
        threshold,
      ).bucket;
      const changes = { ...p.changes };
      if (predicted !== r.reviewBucket) changes.review_bucket = { from: r.reviewBucket, to: predicted };
      else delete changes.review_bucket;
      out.push({ ...p, changes, approve });
    }
    return { job, rule, planned: out };
  }

  const engine = {
    /**
     * One page of the review queue, highest priority first: rows needing attention (blocked, conflict,
     * needs_review; pending or failed), or every row of one bucket.
     */
    async queue(jobId: string, query: ReviewQueueQuery = {}): Promise<ReviewQueuePage> {
      const job = await requireManifestJob(db, jobId);
      const limit = query.limit ?? 100;
      const cursor = decodeCursor(query.cursor);
      const buckets = query.bucket === undefined ? QUEUE_BUCKETS : [query.bucket];
      const found: RowRecord[] = [];
      let more = false;
      for (const bucket of buckets) {
        const b = REVIEW_BUCKETS.indexOf(bucket);
        if (cursor !== undefined && b < cursor.bucket) continue;
        const where: SQL[] = [eq(rows.jobId, jobId), eq(rows.reviewBucket, bucket)];
        // Applied, skipped and rolled-back rows need no attention (unless a bucket is asked for).
        if (query.bucket === undefined) where.push(inArray(rows.status, ["pending", "failed"]));
        if (cursor !== undefined && b === cursor.bucket) {
          where.push(sql`(${rows.confidence}, ${rows.seq}) > (${cursor.confidence}, ${cursor.seq})`);
        }
        if (query.reason !== undefined) where.push(reasonFilter(query.reason));
        const page = await db
          .select()
          .from(rows)
          .where(and(...where))
          .orderBy(asc(rows.confidence), asc(rows.seq))
          .limit(limit + 1 - found.length);
        found.push(...page);
        if (found.length > limit) {
          more = true;
          break;
        }
      }
      const items = found.slice(0, limit);
      const last = items[items.length - 1];
      return {
        items: await toQueueRows(job, items),
        next_cursor:
          more && last !== undefined
            ? encodeCursor({
                bucket: REVIEW_BUCKETS.indexOf(last.reviewBucket),
                confidence: last.confidence,
                seq: last.seq,
              })
            : null,
        revision: job.revision ?? 0,
        summary: await summaryOf(jobId, job),
      };
    },

    /** Counts per bucket and the top reasons of a job (cached per manifest revision). */
    summary: (jobId: string) => summaryOf(jobId),

    /**
     * One action over many rows (`row_ids`, or every row matching `filter`), in one atomic, audited patch
     * batch: approve (→ `auto_safe` unless blocked or conflicting), skip, set the category, or set the target
     * (a folder — relative to the output directory or absolute — keeping each file name, or a naming template).
     */
    async batchTriage(jobId: string, request: BatchTriageRequest, actor: Actor): Promise<BatchTriageResult> {
      const job = await requireManifestJob(db, jobId);
      let rowIds: string[];
      if (request.row_ids !== undefined) {
        rowIds = [...new Set(request.row_ids)];
      } else {
        const f = request.filter ?? {};
        const where: SQL[] = [eq(rows.jobId, jobId)];
        if (f.bucket !== undefined) where.push(eq(rows.reviewBucket, f.bucket));
        if (f.category !== undefined) where.push(eq(rows.category, f.category));
        if (f.reason !== undefined) where.push(reasonFilter(f.reason));
        if (f.q !== undefined) {
          const pattern = `%${f.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
          const cond = or(
            sql`${rows.sourcePath} LIKE ${pattern} ESCAPE '\\'`,
            sql`${rows.targetPath} LIKE ${pattern} ESCAPE '\\'`,
          );
          if (cond !== undefined) where.push(cond);
        }
        rowIds = (
          await db
            .select({ id: rows.id })
            .from(rows)
            .where(and(...where))
            .orderBy(asc(rows.seq))
        ).map((r) => r.id);
      }
      if (rowIds.length === 0)
        return { applied_count: 0, revision: job.revision ?? 0, summary: await summaryOf(jobId) };
      const ops: Array<{ row_id: string; patch: InternalPatch }> = [];
      const value = request.value ?? "";
      switch (request.action) {
        case "approve":
          for (const id of rowIds) ops.push({ row_id: id, patch: { approved: true } });
          break;
        case "skip":
          for (const id of rowIds) ops.push({ row_id: id, patch: { action: "skip" } });
          break;
        case "set_category":
          for (const id of rowIds)
            ops.push({ row_id: id, patch: { category: value as RowRecord["category"] } });
          break;
        case "set_target": {
          const current = await loadRows(db, jobId, rowIds);
          if (current.length !== rowIds.length) {
            const known = new Set(current.map((r) => r.id));
            const missing = rowIds.filter((id) => !known.has(id));
            throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${jobId}.`, {
              row_ids: missing,
            });
          }
          const outputDir = String(job.params.output_dir ?? "");
          if (value.includes("{")) {
            const parsed = parseTemplate(value);
            if (!parsed.ok) throw new FileorgError("INVALID_TEMPLATE", parsed.message, { value });
            for (const r of current) {
              const rel = renderTemplate(parsed.template, {
                category: r.category,
                mtime: r.mtime,
                fileName: basename(r.sourcePath),
                sha256: r.sha256,
              });
              ops.push({ row_id: r.id, patch: { target_path: join(outputDir, rel) } });
            }
          } else {
            const folder = value.replace(/\/+$/, "");
            for (const r of current)
              ops.push({
                row_id: r.id,
                patch: { target_path: posix.join(folder || "/", posix.basename(r.targetPath)) },
              });
          }
          break;
        }
      }
      const result = await fileorg.applyPatches(jobId, ops, {
        actor: actor.actor,
        requestId: actor.requestId,
        auditAction: "review.triage",
        extraAudit: [
          {
            jobId,
            actor: actor.actor,
            requestId: actor.requestId ?? null,
            action: "review.batch_triage",
            subject: jobId,
            before: null,
            after: { action: request.action, value: request.value ?? null, rows: rowIds.length },
          },
        ],
      });
      return { applied_count: rowIds.length, revision: result.revision, summary: await summaryOf(jobId) };
    },

    /** The rows a rule (saved, by id, or inline) matches and the exact change per row; saves nothing. */
    async previewRule(jobId: string, request: RuleRequest): Promise<RuleOutcome> {
      const { job, planned } = await planRule(jobId, request);
      return {
        matched_count: planned.length,
        matches: planned.map((p) => ({ row_id: p.row_id, changes: p.changes })),
        revision: job.revision ?? 0,
      };
    },

    /** Applies a rule to the manifest as one atomic, audited revision; answers what changed. */
    async applyRule(jobId: string, request: RuleRequest, actor: Actor): Promise<RuleOutcome> {
      const { job, rule, planned } = await planRule(jobId, request);
      const ops: Array<{ row_id: string; patch: InternalPatch }> = [];
      for (const p of planned) {
        const patch: InternalPatch = {};
        if (p.changes.category !== undefined) patch.category = p.changes.category.to as RowRecord["category"];
        if (p.changes.target_path !== undefined) patch.target_path = p.changes.target_path.to;
        if (p.changes.action !== undefined) patch.action = p.changes.action.to as RowRecord["action"];
        if (p.approve) patch.approved = true;
        if (Object.keys(patch).length > 0) ops.push({ row_id: p.row_id, patch });
      }
      if (ops.length === 0) {
        return {
          matched_count: planned.length,
          matches: planned.map((p) => ({ row_id: p.row_id, changes: {} })),
          revision: job.revision ?? 0,
        };
      }
      const result = await fileorg.applyPatches(jobId, ops, {
        actor: actor.actor,
        requestId: actor.requestId,
        auditAction: "review.rule_applied",
        extraAudit: [
          {
            jobId,
            actor: actor.actor,
            requestId: actor.requestId ?? null,
            action: "review.rule_apply",
            subject: rule.id ?? rule.name,
            before: null,
            after: { rule, rows: ops.length },
          },
        ],
      });
      const after = new Map(result.items.map((r) => [r.row_id, r]));
      const records = new Map(
        (
          await loadRows(
            db,
            jobId,
            planned.map((p) => p.row_id),
          )
        ).map((r) => [r.id, r]),
      );
      return {
        matched_count: planned.length,
        matches: planned.map((p) => {
          const now = after.get(p.row_id);
          const stored = records.get(p.row_id);
          const changes = { ...p.changes };
          // Report the bucket the row really landed in (conflicts may have opened or closed).
          const bucket = now?.review_bucket ?? stored?.reviewBucket;
          if (changes.review_bucket !== undefined && bucket !== undefined)
            changes.review_bucket = { ...changes.review_bucket, to: bucket };
          return { row_id: p.row_id, changes };
        }),
        revision: result.revision,
      };
    },

    /** Drafts a rule from two or more example rows of a job; the draft is not saved. */
    async draftFromExamples(jobId: string, rowIds: readonly string[]): Promise<DraftRule> {
      const job = await requireManifestJob(db, jobId);
      const outputDir = String(job.params.output_dir ?? "");
      const ids = [...new Set(rowIds)];
      const found = new Map((await loadRows(db, jobId, ids)).map((r) => [r.id, toFacts(r)]));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) {
        throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${jobId}.`, {
          row_ids: missing,
        });
      }
      const examples = ids.map((id) => found.get(id)).filter((f): f is ReviewRowFacts => f !== undefined);
      // Draft first, then look for further matches among the rows SQL says the draft can match.
      const { draft } = draftRuleFromExamples(examples, [], outputDir);
      const { facts } = await loadFacts(jobId, rulePrefilter(jobId, draft.conditions));
      return draftRuleFromExamples(examples, facts, outputDir);
    },

    /** Every learned signal → outcome pair, strongest first, with counts and strength. */
    async listLearned(): Promise<{ items: LearnedRuleView[] }> {
      const all = await db
        .select()
        .from(learnedRules)
        .orderBy(desc(learnedRules.count), asc(learnedRules.id));
      const totals = new Map<string, number>();
      for (const r of all) {
        const key = `${r.signalKind}:${r.signalValue}|${r.outcomeField}`;
        totals.set(key, (totals.get(key) ?? 0) + r.count);
      }
      const items = all.map((r) => {
        const learned = toLearned(r);
        return {
          ...learned,
          strength:
            Math.round(
              strengthOf(
                learned,
                totals.get(`${r.signalKind}:${r.signalValue}|${r.outcomeField}`) ?? r.count,
              ) * 1000,
            ) / 1000,
          suggests: isPastThreshold(learned, learning),
          updated_at: new Date(r.updatedAt).toISOString(),
        };
      });
      items.sort((a, b) => b.strength - a.strength || b.count - a.count || a.id.localeCompare(b.id));
      return { items };
    },

    /** Clears learned pairs: all, or one by id (LEARNED_RULE_NOT_FOUND when unknown). */
    async clearLearned(id?: string): Promise<void> {
      if (id === undefined) {
        await runTransaction(db, (tx) => tx.delete(learnedRules));
      } else {
        const gone = await runTransaction(db, (tx) =>
          tx.delete(learnedRules).where(eq(learnedRules.id, id)).returning({ id: learnedRules.id }),
        );
        if (gone.length === 0)
          throw new ReviewError("LEARNED_RULE_NOT_FOUND", `No learned rule ${id}.`, { id });
      }
      learnedVersion += 1;
    },

    /**
     * Starts an analyze job over exactly an inbox batch: the watch source's strategy pack gives the naming
     * template and the confidence threshold; the output root is the runtime default or the watched folder.
     */
    async analyzeInboxFiles(
      source: Stored<"watch-sources">,
      files: readonly InboxFile[],
      actor: Actor = { actor: "local" },
    ): Promise<Job> {
      const runtime = await preferences.runtimeSettings();
      const pack =
        findStrategyPack(source.strategy_pack_id ?? runtime.active_strategy_pack) ??
        (await preferences.activeStrategyPack());
      return fileorg.analyzeFiles(
        {
          source_dir: source.path,
          ...(runtime.default_output_root === null ? {} : { output_dir: runtime.default_output_root }),
          naming_template: pack.naming_template,
          files: files.map((f) => f.path),
          confidence_threshold: pack.confidence_threshold,
        },
        actor,
      );
    },
  };
  return engine;
}

/** The review engine's verbs. */
export type ReviewEngine = ReturnType<typeof createReviewEngine>;
