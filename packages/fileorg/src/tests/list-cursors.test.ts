import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { encodeCursor, MAX_PAGE_LIMIT } from "@vetted/store";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReviewBucket } from "../domain/manifest.js";
import { createInboxEngine } from "../engine/inbox/index.js";
import { createPathGuard } from "../engine/path-guard.js";
import { EMPTY_PLAN_ACCUMULATOR } from "../engine/plan-hash.js";
import { createPreferencesEngine } from "../engine/preferences/index.js";
import { createReviewEngine } from "../engine/review/index.js";
import { jobs, rows } from "../store/schema.js";
import { createHarness, type Harness } from "./harness.js";

/** Rows of the synthetic manifest: more than one maximum page (70% of them in the queue), every bucket. */
const ROWS = MAX_PAGE_LIMIT * 2 + 20;
const JOB = "job_cursors";

let h: Harness;
let preferences: ReturnType<typeof createPreferencesEngine>;
let review: ReturnType<typeof createReviewEngine>;
let inbox: ReturnType<typeof createInboxEngine>;

function bucketOf(i: number): ReviewBucket {
  const k = i % 10;
  return k < 1 ? "blocked" : k < 3 ? "conflict" : k < 7 ? "needs_review" : "auto_safe";
}

async function insertManifest(): Promise<void> {
  const now = Date.now();
  await h.db.insert(jobs).values({
    id: JOB,
    kind: "analyze",
    status: "succeeded",
    phase: "done",
    progress: 1,
    manifestJobId: JOB,
    params: {
      source_dir: join(h.dir, "in"),
      output_dir: join(h.dir, "out"),
      naming_template: "{category}/{name}{ext}",
    },
    revision: 0,
    planAccumulator: EMPTY_PLAN_ACCUMULATOR,
    actor: "test",
    createdAt: now,
    updatedAt: now,
  });
  const values = Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    const name = `file-${i}.pdf`;
    return {
      id: `row_${String(i).padStart(5, "0")}`,
      jobId: JOB,
      seq: i,
      sourcePath: join(h.dir, "in", name),
      targetPath: join(h.dir, "out", "documents", name),
      targetKey: join(h.dir, "out", "documents", name).toLowerCase(),
      size: 100 + i,
      mtime: now - i * 1000,
      sha256: i.toString(16).padStart(64, "0"),
      mime: null,
      category: "documents" as const,
      // Repeated confidences: the queue's keyset must break ties by seq.
      confidence: 0.3 + (i % 7) / 10,
      action: "move" as const,
      reviewBucket: bucketOf(i),
      reasonCodes: ["LOW_CONFIDENCE"],
      status: "pending" as const,
      conflictIds: [],
      planDigest: "0".repeat(64),
      error: null,
      updatedAt: now,
    };
  });
  for (let i = 0; i < values.length; i += 200) await h.db.insert(rows).values(values.slice(i, i + 200));
}

beforeAll(async () => {
  h = await createHarness({ start: false });
  const guard = createPathGuard([h.dir]);
  // The review side takes the plain Drizzle handle over the harness's client (as the server gives it).
  const db = drizzle(h.db.$client);
  preferences = createPreferencesEngine({ db, guard });
  review = createReviewEngine({ db, fileorg: h.engine, preferences });
  inbox = createInboxEngine({ db, preferences, guard, usePolling: true });
  await insertManifest();
  for (const name of ["a", "b", "c"]) {
    const path = join(h.dir, "watch", name);
    mkdirSync(path, { recursive: true });
    await preferences.save("watch-sources", { name, path, enabled: true });
    await preferences.save("views", { name: `view ${name}`, filters: {} });
  }
});
afterAll(async () => {
  await inbox.stop();
  await h.close();
});

const GARBAGE = ["garbage", "%%%", "bm90IGpzb24", encodeCursor("fileorg.manifest-rows", ["x"])];

/** Expects `call` to reject with CURSOR_INVALID. */
async function expectCursorInvalid(call: () => Promise<unknown>): Promise<void> {
  await expect(call()).rejects.toMatchObject({ code: "CURSOR_INVALID" });
}

/** A next_cursor each list really made (for the "cursor of another list" cases). */
async function cursorsOfEveryList() {
  const manifest = await h.engine.listRows(JOB, { limit: 1 });
  const queue = await review.queue(JOB, { limit: 1 });
  const views = await preferences.list("views", { limit: 1 });
  const watch = await preferences.list("watch-sources", { limit: 1 });
  const scan = await inbox.scan({ limit: 1 });
  const found = { manifest, queue, views, watch, scan };
  for (const [name, page] of Object.entries(found)) expect(page.next_cursor, name).not.toBeNull();
  return {
    manifest: manifest.next_cursor ?? "",
    queue: queue.next_cursor ?? "",
    views: views.next_cursor ?? "",
    watch: watch.next_cursor ?? "",
    scan: scan.next_cursor ?? "",
    conflicts: encodeCursor("fileorg.conflicts", ["cf_x"]),
  };
}

describe("every list of manifest, review, preferences and inbox refuses a bad cursor with CURSOR_INVALID", () => {
  it.each(GARBAGE)("refuses the garbage cursor %s on every list", async (cursor) => {
    await expectCursorInvalid(() => h.engine.listRows(JOB, { cursor }));
    await expectCursorInvalid(() => h.engine.listConflicts(JOB, { cursor }));
    await expectCursorInvalid(() => review.queue(JOB, { cursor }));
    await expectCursorInvalid(() => review.listLearned({ cursor }));
    await expectCursorInvalid(() => preferences.list("views", { cursor }));
    await expectCursorInvalid(() => inbox.scan({ cursor }));
  });

  it("refuses a cursor another list made", async () => {
    const c = await cursorsOfEveryList();
    await expectCursorInvalid(() => h.engine.listRows(JOB, { cursor: c.queue }));
    await expectCursorInvalid(() => h.engine.listConflicts(JOB, { cursor: c.manifest }));
    await expectCursorInvalid(() => review.queue(JOB, { cursor: c.manifest }));
    await expectCursorInvalid(() => review.listLearned({ cursor: c.queue }));
    // Each preference family is its own list: a views cursor is not a watch-sources cursor.
    await expectCursorInvalid(() => preferences.list("watch-sources", { cursor: c.views }));
    await expectCursorInvalid(() => preferences.list("views", { cursor: c.scan }));
    await expectCursorInvalid(() => inbox.scan({ cursor: c.watch }));
    await expectCursorInvalid(() => inbox.scan({ cursor: c.conflicts }));
  });

  it("refuses a queue cursor whose confidence is not a number it could have written", async () => {
    await expectCursorInvalid(() =>
      review.queue(JOB, { cursor: encodeCursor("fileorg.review-queue", [2, "1e309", 1]) }),
    );
    await expectCursorInvalid(() =>
      review.queue(JOB, { cursor: encodeCursor("fileorg.review-queue", [9, "0.5", 1]) }),
    );
  });
});

describe("paging across pages", () => {
  it("pages the manifest in analyze order, every row once, a page never above the one maximum", async () => {
    const big = await h.engine.listRows(JOB, { limit: 10_000 });
    expect(big.items).toHaveLength(MAX_PAGE_LIMIT);
    expect(big.next_cursor).not.toBeNull();
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.engine.listRows(JOB, { limit: 97, cursor });
      expect(page.items.length).toBeLessThanOrEqual(97);
      seen.push(...page.items.map((r) => Number(r.row_id.slice(4))));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
  });

  it("pages the review queue in priority order, every row needing attention once", async () => {
    const attention = Array.from({ length: ROWS }, (_, n) => n + 1).filter(
      (i) => bucketOf(i) !== "auto_safe",
    );
    const order = ["blocked", "conflict", "needs_review"];
    const seen: Array<{ id: string; bucket: string; confidence: number }> = [];
    let cursor: string | undefined;
    do {
      const page = await review.queue(JOB, { limit: 33, cursor });
      seen.push(
        ...page.items.map((r) => ({ id: r.row_id, bucket: r.review_bucket, confidence: r.confidence })),
      );
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(new Set(seen.map((s) => s.id)).size).toBe(attention.length);
    expect(seen).toHaveLength(attention.length);
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1], seen[i]];
      if (a === undefined || b === undefined) continue;
      const byBucket = order.indexOf(a.bucket) - order.indexOf(b.bucket);
      expect(byBucket < 0 || (byBucket === 0 && a.confidence <= b.confidence)).toBe(true);
    }
    const capped = await review.queue(JOB, { limit: 10_000 });
    expect(capped.items).toHaveLength(MAX_PAGE_LIMIT);
    expect(capped.next_cursor).not.toBeNull();
  });

  it("pages preferences and inbox batches by id, each item once", async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await preferences.list("watch-sources", { limit: 2, cursor });
      names.push(...page.items.map((s) => s.name));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    expect(names).toEqual(["a", "b", "c"]);
    const ids: string[] = [];
    do {
      const page = await inbox.scan({ limit: 2, cursor });
      ids.push(...page.items.map((b) => b.watch_source_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
    const all = (await inbox.scan()).items.map((b) => b.watch_source_id);
    expect(ids).toEqual(all);
    expect(all).toHaveLength(3);
  });
});
