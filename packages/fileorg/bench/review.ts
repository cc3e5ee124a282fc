/**
 * Review benchmark at 100,000 manifest rows: a review-queue page (p95) against a plain indexed page of the
 * same size, and a rule preview against a plain load of every row. Ratios are measured in the same run.
 * Rows are inserted directly (synthetic manifest), so the figures are about review, not analyze.
 *
 * Run: pnpm --filter @vetted/fileorg bench:review   (ROWS=… to change the size)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { and, asc, eq, gt } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { createFileorgEngine } from "../src/engine/engine.js";
import { listRows } from "../src/engine/manifest/index.js";
import { createTextSearch } from "../src/engine/manifest/text-search.js";
import { EMPTY_PLAN_ACCUMULATOR } from "../src/engine/plan-hash.js";
import { createPreferencesEngine } from "../src/engine/preferences/index.js";
import { createReviewEngine } from "../src/engine/review/index.js";
import { migrate } from "../src/store/migrate.js";
import { rulePrefilter } from "../src/store/review-queries.js";
import { jobs, rows } from "../src/store/schema.js";

const ROWS = Number(process.env.ROWS ?? 100_000);
const PAGE = 200;
const PAGES = 60;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fileorg-review-bench-"));
  const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
  await client.execute("PRAGMA journal_mode = WAL");
  const db = drizzle(client);
  await migrate(db);
  const fileorg = createFileorgEngine({ db, allowedRoots: [dir], journalKey: Buffer.alloc(32, 1) });
  const preferences = createPreferencesEngine({ db });
  const review = createReviewEngine({ db, fileorg, preferences });

  const jobId = "job_bench";
  const now = Date.now();
  await db.insert(jobs).values({
    id: jobId,
    kind: "analyze",
    status: "succeeded",
    phase: "done",
    progress: 1,
    manifestJobId: jobId,
    params: {
      source_dir: "/in",
      output_dir: "/out",
      naming_template: "{category}/{yyyy}/{name}{ext}",
      confidence_threshold: 0.7,
    },
    revision: 0,
    planAccumulator: EMPTY_PLAN_ACCUMULATOR,
    actor: "bench",
    createdAt: now,
    updatedAt: now,
  });
  const exts = [".pdf", ".jpg", ".txt", ".zip", ".mp3", ".docx", ".xyz"];
  const categories = ["documents", "images", "documents", "archives", "audio", "documents", "other"] as const;
  const started = performance.now();
  let batch: Array<typeof rows.$inferInsert> = [];
  const flush = async () => {
    const values = batch;
    batch = [];
    await db.transaction(async (tx) => {
      for (let i = 0; i < values.length; i += 500) await tx.insert(rows).values(values.slice(i, i + 500));
    });
  };
  for (let i = 1; i <= ROWS; i++) {
    const k = i % 100;
    const bucket = k < 1 ? "blocked" : k < 6 ? "conflict" : k < 36 ? "needs_review" : "auto_safe";
    const e = i % exts.length;
    const name = `${i % 10 === 0 ? "receipt" : "file"}-${i}${exts[e]}`;
    const confidence = bucket === "needs_review" ? 0.3 + ((i * 7) % 40) / 100 : 0.8 + ((i * 3) % 20) / 100;
    batch.push({
      id: `row_${String(i).padStart(7, "0")}`,
      jobId,
      seq: i,
      sourcePath: `/in/folder-${i % 50}/${name}`,
      targetPath: `/out/${categories[e]}/2024/${name}`,
      targetKey: `/out/${categories[e]}/2024/${name}`.toLowerCase(),
      size: 1000 + (i % 5000),
      mtime: now - i * 1000,
      sha256: i.toString(16).padStart(64, "0"),
      mime: null,
      category: categories[e] ?? "other",
      confidence,
      action: "move",
      reviewBucket: bucket,
      reasonCodes:
        bucket === "blocked"
          ? ["UNREADABLE", "BLOCKED"]
          : bucket === "conflict"
            ? ["MIME_FROM_EXTENSION", "OPEN_CONFLICT"]
            : bucket === "needs_review"
              ? ["UNKNOWN_TYPE", "LOW_CONFIDENCE"]
              : ["MIME_FROM_MAGIC"],
      status: "pending",
      blocked: bucket === "blocked",
      conflictIds: bucket === "conflict" ? [`cf_${Math.floor(i / 2)}`] : [],
      planDigest: "0".repeat(64),
      error: null,
      updatedAt: now,
    });
    if (batch.length >= 5000) await flush();
  }
  await flush();
  process.stdout.write(`fileorg review bench: ${ROWS} rows inserted in ${ms(performance.now() - started)}\n`);

  // Baseline: a plain indexed page of the manifest (job_id, seq), same size.
  const baseline: number[] = [];
  let after = 0;
  for (let p = 0; p < PAGES; p++) {
    const t0 = performance.now();
    const page = await db
      .select()
      .from(rows)
      .where(and(eq(rows.jobId, jobId), gt(rows.seq, after)))
      .orderBy(asc(rows.seq))
      .limit(PAGE);
    baseline.push(performance.now() - t0);
    after = page[page.length - 1]?.seq ?? 0;
  }

  // Review queue pages: priority order, labelled reasons, suggestions, summary (cached after the first page).
  const t0 = performance.now();
  let queue = await review.queue(jobId, { limit: PAGE });
  const cold = performance.now() - t0;
  const queueTimes: number[] = [];
  for (let p = 0; p < PAGES && queue.next_cursor !== null; p++) {
    const t1 = performance.now();
    queue = await review.queue(jobId, { limit: PAGE, cursor: queue.next_cursor });
    queueTimes.push(performance.now() - t1);
  }
  const filtered: number[] = [];
  for (let p = 0; p < 20; p++) {
    const t1 = performance.now();
    await review.queue(jobId, { limit: PAGE, bucket: "needs_review", reason: "LOW_CONFIDENCE" });
    filtered.push(performance.now() - t1);
  }

  const rule = {
    name: "Receipts",
    enabled: true,
    priority: 0,
    stop_further_rules: false,
    conditions: {
      all: [
        { field: "name_glob" as const, glob: "receipt-*" },
        { field: "extension" as const, in: [".pdf", ".jpg"] },
      ],
    },
    actions: [
      { type: "set_category" as const, category: "documents" as const },
      { type: "approve" as const },
    ],
  };
  // Baseline: a plain SELECT of the rows SQL narrows the rule to (what preview reads before evaluating).
  const loads: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t1 = performance.now();
    await db.select().from(rows).where(rulePrefilter(jobId, rule.conditions));
    loads.push(performance.now() - t1);
  }
  const previews: number[] = [];
  let matched = 0;
  for (let r = 0; r < 5; r++) {
    const t1 = performance.now();
    const outcome = await review.previewRule(jobId, { rule });
    previews.push(performance.now() - t1);
    matched = outcome.matched_count;
  }

  // A rule SQL cannot narrow (a regular expression only) reads every row: measured once, for the record.
  const t2 = performance.now();
  const regexOutcome = await review.previewRule(jobId, {
    rule: { ...rule, conditions: { all: [{ field: "name_regex" as const, regex: "^receipt-\\d+\\.pdf$" }] } },
  });
  const regexTime = performance.now() - t2;

  // Saved views: manifest pages in a view's sort (a full sort of the job's rows per page: no index
  // covers an arbitrary order), and queue pages through a view with no sort (priority order).
  const bySize = await preferences.save("views", {
    name: "Biggest first",
    sort: [{ field: "size", direction: "desc" }],
  });
  const viewTimes: number[] = [];
  let viewPage = await review.manifestPage(jobId, { view: bySize.id, limit: PAGE });
  for (let p = 0; p < 20 && viewPage.next_cursor !== null; p++) {
    const t1 = performance.now();
    viewPage = await review.manifestPage(jobId, {
      view: bySize.id,
      limit: PAGE,
      cursor: viewPage.next_cursor,
    });
    viewTimes.push(performance.now() - t1);
  }
  const plainView = await preferences.save("views", { name: "Queue as is" });
  const viewQueueTimes: number[] = [];
  let viewQueue = await review.queue(jobId, { view: plainView.id, limit: PAGE });
  for (let p = 0; p < 20 && viewQueue.next_cursor !== null; p++) {
    const t1 = performance.now();
    viewQueue = await review.queue(jobId, { view: plainView.id, limit: PAGE, cursor: viewQueue.next_cursor });
    viewQueueTimes.push(performance.now() - t1);
  }

  // The text filter, a rare text (a scan visits every row): the plain scan, then the search copy's candidates.
  const text = "RECEIPT-9999";
  const timeFilter = async (search?: ReturnType<typeof createTextSearch>) => {
    const times: number[] = [];
    for (let r = 0; r < 15; r++) {
      const t1 = performance.now();
      await listRows(db, jobId, { text, limit: PAGE }, search);
      times.push(performance.now() - t1);
    }
    return times;
  };
  const scanTimes = await timeFilter();
  const search = createTextSearch({ delayMs: 0 });
  const tb = performance.now();
  const cpu = process.cpuUsage();
  await listRows(db, jobId, { limit: 1 }, search);
  await search.settled();
  const buildCpu = process.cpuUsage(cpu);
  const buildTime = performance.now() - tb;
  const searchTimes = await timeFilter(search);

  const pageP95 = percentile(queueTimes, 95);
  const basePageP95 = percentile(baseline, 95);
  const previewMedian = percentile(previews, 50);
  const loadMedian = percentile(loads, 50);
  const lines = [
    `review-queue page of ${PAGE} (p95 over ${queueTimes.length} pages): ${ms(pageP95)}  (p50 ${ms(percentile(queueTimes, 50))}; target ≤ 50 ms)`,
    `  baseline plain indexed page of ${PAGE} (p95): ${ms(basePageP95)}  → ratio ${(pageP95 / basePageP95).toFixed(2)}×`,
    `  first page with a cold summary: ${ms(cold)}; filtered by bucket+reason (p95): ${ms(percentile(filtered, 95))}`,
    `manifest page of ${PAGE} through a view sorted by size (p95 over ${viewTimes.length}): ${ms(percentile(viewTimes, 95))}  → ratio ${(percentile(viewTimes, 95) / basePageP95).toFixed(2)}× the plain page`,
    `review-queue page of ${PAGE} through a view in priority order (p95 over ${viewQueueTimes.length}): ${ms(percentile(viewQueueTimes, 95))}  → ratio ${(percentile(viewQueueTimes, 95) / basePageP95).toFixed(2)}× the plain page`,
    `rule preview over ${ROWS} rows (median of 5, ${matched} matches): ${ms(previewMedian)}  (max ${ms(Math.max(...previews))}; target ≤ 300 ms)`,
    `  baseline plain SELECT of the same narrowed rows (median of 5): ${ms(loadMedian)}  → ratio ${(previewMedian / loadMedian).toFixed(2)}×`,
    `  a rule SQL cannot narrow (regex only, ${regexOutcome.matched_count} matches, reads all ${ROWS} rows): ${ms(regexTime)}`,
    `text filter ${JSON.stringify(text)}, first page of ${PAGE} (p50 / p95 of 15): plain scan ${ms(percentile(scanTimes, 50))} / ${ms(percentile(scanTimes, 95))}`,
    `  through the search copy: ${ms(percentile(searchTimes, 50))} / ${ms(percentile(searchTimes, 95))}  → ratio ${(percentile(searchTimes, 50) / percentile(scanTimes, 50)).toFixed(2)}× (copy built in ${ms(buildTime)}, ${ms((buildCpu.user + buildCpu.system) / 1000)} of CPU)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  client.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
