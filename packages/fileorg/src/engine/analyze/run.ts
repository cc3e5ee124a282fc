import { execInTx, runTransaction } from "@vetted/store";
import { and, eq, gt, inArray, isNotNull, sql } from "drizzle-orm";
import type { ConflictScope } from "../../domain/detect-conflicts.js";
import { parseTemplate } from "../../domain/template.js";
import { FileorgError } from "../../errors.js";
import { createBulkScript } from "../../store/bulk-insert.js";
import { jobs, rows, rowTexts } from "../../store/schema.js";
import { confineScope } from "../confined-fs.js";
import { analyzeThreadsFor, createInspectPool, type InspectedFile } from "../inspect-pool.js";
import { type RowRecord, recomputeConflicts, thresholdOf } from "../manifest/index.js";
import { createPlanAccumulator } from "../plan-hash.js";
import type { FileorgResources, JobBody } from "../resources.js";
import type { JobRun } from "../run.js";
import { type AnalyzePlan, type BuiltRow, buildRow, factsOf } from "./rows.js";
import {
  discardingRowsOnLimit,
  prepareRowFinisher,
  type RowFinisher,
  workersOf,
} from "./rules-at-analyze.js";
import { buildSpecialRow } from "./special-rows.js";
import { discoverUnits } from "./units.js";
import { inspectAll, listProtected, mapBounded, type WalkStats, walkFiles } from "./walk.js";

/**
 * Rows per insert transaction. The SHA-256 and target indexes take rows in random order, so each batch
 * rewrites about one index page per row: larger batches let a page absorb more rows. The insert runs on
 * the driver's threads while the scan builds the next batch (see `createRowWriter`), so two batches are
 * in memory at once: 5,000 rows measured 320 MB of peak RSS at 100,000 files (over issue 28's 300 MB),
 * 2,500 rows 277–286 MB for an analyze at most 0.1× slower.
 */
const BATCH = 2500;
const insertRows = createBulkScript(rows);
const insertTexts = createBulkScript(rowTexts);
/** A batch is also written once its rows' text excerpts reach this many characters (bounded memory). */
const BATCH_TEXT = 8 << 20;
/**
 * The page cache of the connection that writes a batch: the SHA-256 and target indexes of 100,000 rows
 * outgrow SQLite's default 2 MiB, and a batch then re-reads and spills index pages for most of its rows.
 * 16 MiB keeps most of that gain; it is counted in analyze's peak RSS (64 MiB cost about 60 MB of it at
 * 100,000 files, for no measurable speed on a loaded machine).
 */
const BATCH_PAGE_CACHE = sql.raw("PRAGMA cache_size = -16384");

/** What the scan stored. */
interface ScanTotals {
  seq: number;
  discovered: number;
  bytes: number;
  blocked: number;
  cancelled: boolean;
  /** The XOR of the stored rows' plan digests, kept as they are built (no second read of the manifest). */
  accumulator: ReturnType<typeof createPlanAccumulator>;
}

/** Writes rows in batches; while a batch is written the reader threads go on reading the next files. */
function createRowWriter(run: JobRun, totals: ScanTotals, stats: WalkStats) {
  let batch: RowRecord[] = [];
  let texts: Array<typeof rowTexts.$inferInsert> = [];
  let textSize = 0;
  let pending: Promise<void> = Promise.resolve();
  /** What the batches stored so far hold (the last one handed to the database included once it is stored). */
  let stored = { seq: 0, bytes: 0 };
  return {
    push(row: BuiltRow): boolean {
      // The row goes as it is (the inserter reads only the table's columns; no copy without the excerpt).
      batch.push(row);
      const { textExcerpt } = row;
      if (textExcerpt !== undefined) {
        texts.push({ rowId: row.id, jobId: row.jobId, excerpt: textExcerpt });
        textSize += textExcerpt.length;
      }
      return batch.length >= BATCH || textSize >= BATCH_TEXT;
    },
    async flush(): Promise<void> {
      await pending;
      // Progress counts what is stored, and is written before the next batch takes the write lock (it
      // would otherwise wait there for that batch's insert, holding up the scan).
      const { discovered } = totals;
      await run.progress(discovered === 0 ? 0 : (0.9 * stored.seq) / Math.max(discovered, stored.seq), {
        files: stored.seq,
        bytes: stored.bytes,
        directories: stats.directories,
      });
      if (batch.length === 0) return;
      const values = batch;
      const statement = insertRows(values);
      const textStatement = insertTexts(texts);
      batch = [];
      texts = [];
      textSize = 0;
      // A script: `@vetted/store`'s embedded client writes it on the driver's threads while the scan goes
      // on (a plain `@libsql/client` writes it on the main thread).
      const { db } = run.ctx;
      const handed = { seq: totals.seq, bytes: totals.bytes };
      pending = runTransaction(db, async (tx) => {
        if (statement === undefined) return;
        await tx.run(BATCH_PAGE_CACHE);
        await execInTx(db, tx, statement);
        if (textStatement !== undefined) await execInTx(db, tx, textStatement);
      }).then(() => {
        stored = handed;
      });
    },
    settled: () => pending,
  };
}

/** The scan: walk (or the listed files), inspect on reader threads, build and store rows in batches. */
async function scanRows(
  run: JobRun,
  plan: AnalyzePlan,
  stats: WalkStats,
  finish: RowFinisher,
): Promise<ScanTotals> {
  const { ctx, job } = run;
  const totals: ScanTotals = {
    seq: 0,
    discovered: 0,
    bytes: 0,
    blocked: 0,
    cancelled: false,
    accumulator: createPlanAccumulator(),
  };
  const writer = createRowWriter(run, totals, stats);
  const listed = plan.files;
  const files = (async function* () {
    const unitRoots = new Set(plan.units?.units.keys() ?? []);
    const paths: AsyncIterable<string> | Iterable<string> =
      listed ?? walkFiles(plan.sourceDir, { ...plan, unitRoots }, stats);
    for await (const path of paths) {
      // A listed file (an inbox batch) may be protected too; the walk already lists the ones it meets.
      if (plan.isProtected?.(path) === true) {
        listProtected(path, false, stats);
        continue;
      }
      totals.discovered++;
      yield path;
    }
  })();
  const build = async (file: InspectedFile) =>
    buildRow(await factsOf(file), plan, job.id, 0, ctx.ids("row"), ctx.clock());
  const pool = createInspectPool(analyzeThreadsFor(plan.concurrency), { pdfText: plan.pdfText });
  try {
    const roots = confineScope(ctx.guard.roots, plan.sourceDir);
    for await (const row of mapBounded(inspectAll(files, pool, roots), plan.concurrency, build)) {
      totals.seq++;
      row.seq = totals.seq;
      totals.bytes += row.size;
      await finish(row, totals.seq, totals.bytes);
      if (row.blocked) totals.blocked++;
      totals.accumulator.add(row.planDigest);
      if (writer.push(row)) {
        await writer.flush();
        if (await run.isCancelled()) {
          await writer.settled();
          return { ...totals, cancelled: true };
        }
      }
    }
    for (const entry of stats.specialEntries ?? []) {
      const row = await buildSpecialRow(entry, plan, job.id, ctx.ids("row"), ctx.clock());
      if (row === undefined) continue;
      totals.seq++;
      row.seq = totals.seq;
      totals.accumulator.add(row.planDigest);
      if (writer.push(row)) await writer.flush();
    }
  } finally {
    await pool.close();
  }
  await writer.flush();
  await writer.settled();
  return totals;
}

/** Where conflicts may be: target keys and hashes held by several rows, and rows whose target is occupied. */
async function conflictScopeOf(run: JobRun): Promise<ConflictScope> {
  const { db } = run.ctx;
  const moving = and(eq(rows.jobId, run.job.id), inArray(rows.action, ["move", "copy"]));
  const targetKeys = (
    await db
      .select({ key: rows.targetKey })
      .from(rows)
      .where(moving)
      .groupBy(rows.targetKey)
      .having(sql`count(*) > 1`)
  ).map((r) => r.key);
  const shas = (
    await db
      .select({ sha: rows.sha256 })
      .from(rows)
      .where(and(moving, isNotNull(rows.sha256), gt(rows.size, 0)))
      .groupBy(rows.sha256)
      .having(sql`count(*) > 1`)
  ).flatMap((r) => (r.sha === null ? [] : [r.sha]));
  const flagged = (
    await db
      .select({ id: rows.id })
      .from(rows)
      .where(and(moving, eq(rows.targetOccupied, true)))
  ).map((r) => r.id);
  return { targetKeys: new Set(targetKeys), shas: new Set(shas), rowIds: new Set(flagged) };
}

/**
 * Detects the conflicts of the whole manifest (whose plan accumulator, the XOR of every stored row's plan
 * digest, the scan kept) and sets its revision 0; returns how many opened.
 */
async function detectConflicts(run: JobRun, accumulator: string): Promise<number> {
  const { ctx, job } = run;
  const scope = await conflictScopeOf(run);
  const at = ctx.clock();
  const { messages, openConflicts } = await runTransaction(ctx.db, async (tx) => {
    const outcome = await recomputeConflicts(tx, job, scope, accumulator, at);
    await tx
      .update(jobs)
      .set({ revision: 0, planAccumulator: outcome.accumulator, updatedAt: at })
      .where(eq(jobs.id, job.id));
    const count = outcome.messages.filter((m) => m.event.type === "conflict_opened").length;
    return { messages: outcome.messages, openConflicts: count };
  });
  ctx.publish(messages);
  return openConflicts;
}

/** Runs an analyze job: walk, inspect, store rows in batches, then detect conflicts over the whole manifest. */
async function runAnalyze(
  run: JobRun,
  plan: AnalyzePlan,
  finish: RowFinisher,
): Promise<Record<string, unknown>> {
  const stats: WalkStats = { directories: 0, skippedEntries: 0, specialEntries: [] };
  await run.phase("scanning");
  const scanned = await discardingRowsOnLimit(run, () => scanRows(run, plan, stats, finish));
  if (scanned.cancelled) return { files: scanned.seq, bytes: scanned.bytes, cancelled: true };
  await run.phase("conflicts");
  const conflicts = await detectConflicts(run, scanned.accumulator.value());
  return {
    files: scanned.seq,
    bytes: scanned.bytes,
    blocked: scanned.blocked,
    directories: stats.directories,
    skipped_entries: stats.skippedEntries,
    special_entries: stats.specialEntries?.length ?? 0,
    protected_entries: stats.specialEntries?.filter((e) => e.kind === "protected").length ?? 0,
    units: plan.units?.units.size ?? 0,
    conflicts,
  };
}

/** The analyze job body: its plan from the job's parameters (and review's adjuster), then the run. */
export function analyzeBody(res: FileorgResources): JobBody {
  return async (run) => {
    const p = run.job.params;
    const template = parseTemplate(String(p.naming_template));
    if (!template.ok) throw new FileorgError("INVALID_TEMPLATE", template.message);
    const adjust = await res.hooks.analyzeAdjuster?.(run.job);
    const plan: AnalyzePlan = {
      sourceDir: String(p.source_dir),
      outputDir: String(p.output_dir),
      template: template.template,
      recursive: p.recursive !== false,
      includeHidden: p.include_hidden === true,
      concurrency: workersOf(p) ?? res.concurrency,
      files: Array.isArray(p.files) ? p.files.map(String) : undefined,
      confidenceThreshold: thresholdOf(run.job),
      adjust,
      isProtected: (path) => res.ctx.guard.isProtected(path),
      directories: new Map(),
    };
    // Folders kept whole are found first (names only), so each of their files is planned inside its unit.
    if (plan.files === undefined && p.keep_units !== false) {
      plan.units = await discoverUnits({
        jobId: run.job.id,
        sourceDir: plan.sourceDir,
        outputDir: plan.outputDir,
        recursive: plan.recursive,
        at: res.ctx.clock(),
        isProtected: plan.isProtected,
      });
    }
    // Runtime limits, the strategy pack and the saved rules act on each row as it is built.
    const { finish, readsText } = await prepareRowFinisher(res, run.job, plan);
    // PDFs' text only when a rule of the analyze (or a rules file to come, by the request) tests it.
    plan.pdfText = readsText || p.read_pdf_text === true;
    return runAnalyze(run, plan, finish);
  };
}
