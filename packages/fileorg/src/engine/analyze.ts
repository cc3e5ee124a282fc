import type { Dirent } from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import { fileTypeFromBuffer } from "file-type";
import { classifyFile } from "../domain/categorize.js";
import type { ConflictScope } from "../domain/detect-conflicts.js";
import type { RowError } from "../domain/manifest.js";
import { EMPTY_PLAN_ACCUMULATOR, xorDigest } from "../domain/plan-hash.js";
import { type ParsedTemplate, pathKey, renderTemplate } from "../domain/template.js";
import { createBulkInserter } from "../store/bulk-insert.js";
import { jobs, rows } from "../store/schema.js";
import { confineScope } from "./confined-fs.js";
import { runTransaction } from "./db.js";
import { createInspectPool, type InspectedFile, type InspectPool, readerThreadsFor } from "./inspect-pool.js";
import { digestOf, type RowRecord, recomputeConflicts, reviewOf } from "./manifest.js";
import type { JobRun } from "./run.js";

/** Folders of other tools, skipped unless hidden entries are included. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set([
  "node_modules",
  "__pycache__",
  "$RECYCLE.BIN",
  "System Volume Information",
  "lost+found",
]);

/** Options of the walk. */
export interface WalkOptions {
  recursive: boolean;
  includeHidden: boolean;
}

/** Counts of what the walk passed over. */
export interface WalkStats {
  directories: number;
  skippedEntries: number;
}

function isSkipped(name: string, isDir: boolean, options: WalkOptions): boolean {
  if (!options.includeHidden && name.startsWith(".")) return true;
  if (isDir && !options.includeHidden && SKIPPED_DIRECTORIES.has(name)) return true;
  // temp files of an interrupted apply are never part of a plan
  return !isDir && name.includes(".vetted-tmp-");
}

/** Streams the regular files under `root` depth-first; only pending directory paths are held in memory. */
export async function* walkFiles(
  root: string,
  options: WalkOptions,
  stats: WalkStats,
): AsyncGenerator<string> {
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop();
    if (dir === undefined) break;
    stats.directories++;
    let handle: AsyncIterable<Dirent>;
    try {
      handle = await opendir(dir, { bufferSize: 128 });
    } catch {
      stats.skippedEntries++;
      continue;
    }
    const subdirs: string[] = [];
    for await (const entry of handle) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (isSkipped(entry.name, true, options)) stats.skippedEntries++;
        else if (options.recursive) subdirs.push(path);
      } else if (entry.isFile()) {
        if (isSkipped(entry.name, false, options)) stats.skippedEntries++;
        else yield path;
      } else {
        // symlinks, sockets, devices: never followed, never moved
        stats.skippedEntries++;
      }
    }
    stack.push(...subdirs.reverse());
  }
}

/** Maps `source` through `fn` with at most `limit` calls in flight; yields in completion order. */
export async function* mapBounded<T, R>(
  source: AsyncIterable<T>,
  limit: number,
  fn: (item: T) => Promise<R>,
): AsyncGenerator<R> {
  const iterator = source[Symbol.asyncIterator]();
  const running = new Map<number, Promise<{ key: number; value: R }>>();
  let nextKey = 0;
  let exhausted = false;
  for (;;) {
    while (!exhausted && running.size < limit) {
      const next = await iterator.next();
      if (next.done === true) {
        exhausted = true;
        break;
      }
      const key = nextKey++;
      running.set(
        key,
        fn(next.value).then((value) => ({ key, value })),
      );
    }
    if (running.size === 0) return;
    const settled = await Promise.race(running.values());
    running.delete(settled.key);
    yield settled.value;
  }
}

/** What analyzing one file yields. */
export interface FileFacts {
  sourcePath: string;
  size: number;
  mtime: number;
  dev: number;
  ino: number;
  ctime: number;
  sha256: string | null;
  sniffedMime: string | undefined;
  error: RowError | null;
}

const READ_CHUNK = 64;

/** A reader thread's answer as the facts a row is built from (sniffing the magic bytes when it can tell more). */
async function factsOf(file: InspectedFile): Promise<FileFacts> {
  const sniffed = file.head === null ? undefined : await fileTypeFromBuffer(file.head).catch(() => undefined);
  return {
    sourcePath: file.path,
    size: file.size,
    mtime: file.mtime,
    dev: file.dev,
    ino: file.ino,
    ctime: file.ctime,
    sha256: file.sha256,
    sniffedMime: sniffed?.mime,
    error:
      file.errorCode === null
        ? null
        : { code: "UNREADABLE", message: `The file cannot be read (${file.errorCode}).` },
  };
}

/**
 * Streams what the pool's reader threads find about `paths`, sent in chunks with a bounded number of chunks
 * in flight (bounded memory), in the order the paths came. A file whose real parent lies outside `roots`
 * is neither read nor yielded.
 */
export async function* inspectAll(
  paths: AsyncIterable<string>,
  pool: InspectPool,
  roots: readonly string[],
): AsyncGenerator<InspectedFile> {
  const iterator = paths[Symbol.asyncIterator]();
  const queue: Array<Promise<Array<InspectedFile | undefined>>> = [];
  const maxInFlight = pool.threads * 4;
  let exhausted = false;
  for (;;) {
    while (!exhausted && queue.length < maxInFlight) {
      const part: string[] = [];
      while (part.length < READ_CHUNK) {
        const next = await iterator.next();
        if (next.done === true) {
          exhausted = true;
          break;
        }
        part.push(next.value);
      }
      if (part.length === 0) break;
      const answer = pool.inspect(part, roots);
      answer.catch(() => undefined); // awaited below; never an unhandled rejection if the walk stops early
      queue.push(answer);
    }
    const first = queue.shift();
    if (first === undefined) return;
    for (const file of await first) if (file !== undefined) yield file;
  }
}

async function isOccupiedBySomethingElse(
  target: string,
  facts: FileFacts,
  directories: Map<string, Promise<boolean>>,
): Promise<boolean> {
  if (target === facts.sourcePath) return false;
  // Most targets land in folders that do not exist yet: one check per folder instead of one per file.
  const dir = dirname(target);
  let dirExists = directories.get(dir);
  if (dirExists === undefined) {
    dirExists = lstat(dir).then(
      () => true,
      () => false,
    );
    directories.set(dir, dirExists);
  }
  if (!(await dirExists)) return false;
  try {
    const t = await lstat(target);
    // On a case-insensitive file system the "target" may be the file itself under another case.
    return !(t.ino === facts.ino && t.dev === facts.dev);
  } catch {
    return false;
  }
}

/** Everything analyze needs, from the job's parameters. */
export interface AnalyzePlan {
  sourceDir: string;
  outputDir: string;
  template: ParsedTemplate;
  recursive: boolean;
  includeHidden: boolean;
  concurrency: number;
  /** Analyze exactly these files (absolute paths) instead of walking `sourceDir` (the inbox's batches). */
  files?: readonly string[] | undefined;
  /** Rows under this confidence go to `needs_review` (the strategy pack's threshold). */
  confidenceThreshold?: number | undefined;
  /** Adjusts a new row before its bucket is computed (review's learned suggestions). */
  adjust?: RowAdjuster | undefined;
  /** Whether each target folder exists (filled during the walk). */
  directories?: Map<string, Promise<boolean>>;
}

/** What a row adjuster sees and answers: review's learned suggestions raise confidence or add reasons. */
export type RowAdjuster = (row: {
  sourcePath: string;
  targetPath: string;
  mime: string | null;
  category: string;
  confidence: number;
}) => { confidence: number; reasonCodes: readonly string[] } | undefined;

/** Builds the stored row for one inspected file. */
export async function buildRow(
  facts: FileFacts,
  plan: AnalyzePlan,
  jobId: string,
  seq: number,
  rowId: string,
  at: number,
): Promise<RowRecord> {
  const fileName = basename(facts.sourcePath);
  const cls = classifyFile({ ext: extname(fileName), sniffedMime: facts.sniffedMime });
  const rel = renderTemplate(plan.template, {
    category: cls.category,
    mtime: facts.mtime,
    fileName,
    sha256: facts.sha256,
  });
  const targetPath = join(plan.outputDir, rel);
  const inPlace = targetPath === facts.sourcePath;
  const blocked = facts.error !== null;
  const reasonCodes = [...cls.reasonCodes];
  if (inPlace) reasonCodes.push("ALREADY_IN_PLACE");
  if (blocked) reasonCodes.push("UNREADABLE");
  const partial = {
    id: rowId,
    jobId,
    seq,
    sourcePath: facts.sourcePath,
    targetPath,
    targetKey: pathKey(targetPath),
    size: facts.size,
    mtime: facts.mtime,
    sourceDev: facts.dev,
    sourceIno: facts.ino,
    sourceCtime: facts.ctime,
    sha256: facts.sha256,
    mime: cls.mime,
    category: cls.category,
    confidence: cls.confidence,
    action: inPlace || blocked ? ("skip" as const) : ("move" as const),
    reasonCodes,
    status: "pending" as const,
    edited: false,
    targetEdited: false,
    blocked,
    targetOccupied:
      inPlace || blocked
        ? false
        : await isOccupiedBySomethingElse(targetPath, facts, plan.directories ?? new Map()),
    sourceChanged: false,
    duplicateAccepted: false,
    conflictIds: [] as string[],
    error: facts.error,
    updatedAt: at,
  };
  const adjusted = blocked || inPlace ? undefined : plan.adjust?.(partial);
  if (adjusted !== undefined) {
    partial.confidence = adjusted.confidence;
    for (const code of adjusted.reasonCodes)
      if (!partial.reasonCodes.includes(code)) partial.reasonCodes.push(code);
  }
  const { reviewBucket, reasonCodes: withVerdict } = reviewOf(partial, plan.confidenceThreshold);
  const row = { ...partial, reasonCodes: withVerdict };
  return { ...row, reviewBucket, planDigest: digestOf({ ...row, reviewBucket }) };
}

/**
 * Rows per insert transaction. The SHA-256 and target indexes take rows in random order, so each batch
 * rewrites about one index page per row: large batches let a page absorb many rows before it is written.
 */
const BATCH = 5000;
const insertRows = createBulkInserter(rows);

/** Runs an analyze job: walk, inspect, store rows in batches, then detect conflicts over the whole manifest. */
export async function runAnalyze(run: JobRun, plan: AnalyzePlan): Promise<Record<string, unknown>> {
  const { ctx, job } = run;
  const stats: WalkStats = { directories: 0, skippedEntries: 0 };
  let seq = 0;
  let discovered = 0;
  let bytes = 0;
  let blocked = 0;
  let batch: RowRecord[] = [];
  let pending: Promise<void> = Promise.resolve();
  // While a batch is written (the driver is synchronous: it holds the main thread), the reader threads go
  // on reading and hashing the next files.
  const flush = async () => {
    await pending;
    if (batch.length === 0) return;
    const values = batch;
    batch = [];
    const statement = insertRows(values);
    pending = runTransaction(ctx.db, async (tx) => {
      if (statement !== undefined) await tx.run(statement);
    });
    await run.progress(discovered === 0 ? 0 : (0.9 * seq) / Math.max(discovered, seq), {
      files: seq,
      bytes,
      directories: stats.directories,
    });
  };
  await run.phase("scanning");
  const listed = plan.files;
  const files = (async function* () {
    const paths: AsyncIterable<string> | Iterable<string> = listed ?? walkFiles(plan.sourceDir, plan, stats);
    for await (const path of paths) {
      discovered++;
      yield path;
    }
  })();
  const build = async (file: InspectedFile) =>
    buildRow(await factsOf(file), plan, job.id, 0, ctx.ids("row"), ctx.clock());
  const pool = createInspectPool(readerThreadsFor(plan.concurrency));
  try {
    const roots = confineScope(ctx.guard.roots, plan.sourceDir);
    for await (const row of mapBounded(inspectAll(files, pool, roots), plan.concurrency, build)) {
      seq++;
      row.seq = seq;
      bytes += row.size;
      if (row.blocked) blocked++;
      batch.push(row);
      if (batch.length >= BATCH) {
        await flush();
        if (await run.isCancelled()) {
          await pending;
          return { files: seq, bytes, cancelled: true };
        }
      }
    }
  } finally {
    await pool.close();
  }
  await flush();
  await pending;

  await run.phase("conflicts");
  const targetKeys = (
    await ctx.db
      .select({ key: rows.targetKey })
      .from(rows)
      .where(and(eq(rows.jobId, job.id), eq(rows.action, "move")))
      .groupBy(rows.targetKey)
      .having(sql`count(*) > 1`)
  ).map((r) => r.key);
  const shas = (
    await ctx.db
      .select({ sha: rows.sha256 })
      .from(rows)
      .where(and(eq(rows.jobId, job.id), eq(rows.action, "move"), isNotNull(rows.sha256), gt(rows.size, 0)))
      .groupBy(rows.sha256)
      .having(sql`count(*) > 1`)
  ).flatMap((r) => (r.sha === null ? [] : [r.sha]));
  const flagged = (
    await ctx.db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.jobId, job.id), eq(rows.action, "move"), eq(rows.targetOccupied, true)))
  ).map((r) => r.id);
  let accumulator = EMPTY_PLAN_ACCUMULATOR;
  let after = 0;
  for (;;) {
    const page = await ctx.db
      .select({ seq: rows.seq, digest: rows.planDigest })
      .from(rows)
      .where(and(eq(rows.jobId, job.id), gt(rows.seq, after)))
      .orderBy(asc(rows.seq))
      .limit(5000);
    if (page.length === 0) break;
    for (const r of page) accumulator = xorDigest(accumulator, r.digest);
    after = page[page.length - 1]?.seq ?? after;
  }
  const scope: ConflictScope = {
    targetKeys: new Set(targetKeys),
    shas: new Set(shas),
    rowIds: new Set(flagged),
  };
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
  return {
    files: seq,
    bytes,
    blocked,
    directories: stats.directories,
    skipped_entries: stats.skippedEntries,
    conflicts: openConflicts,
  };
}
