import { join, posix } from "node:path";
import { CursorInvalidError, MAX_PAGE_LIMIT } from "@vetted/store";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestRow } from "../domain/manifest.js";
import { isInside } from "../domain/posix-path.js";
import type { ManifestView } from "../engine/insights.js";
import { EMPTY_PLAN_ACCUMULATOR } from "../engine/plan-hash.js";
import { createBulkInserter } from "../store/bulk-insert.js";
import { jobs, rows } from "../store/schema.js";
import { createHarness, type Harness } from "./harness.js";

/** A manifest large enough that a view or a page reading every row would show, small enough to seed fast. */
const ROWS = 20_000;
const JOB = "job_large";

let h: Harness;
let out: string;

type RowInsert = typeof rows.$inferInsert;
type Placed = Pick<RowInsert, "action" | "sourcePath" | "targetPath" | "size">;

/** Where row `i` is planned: nested folders, the output root, skips in and outside it, a look-alike sibling. */
function placeOf(i: number): Placed {
  const name = i % 97 === 0 ? `café ${i}.txt` : `file-${i}.txt`;
  const source = join(h.dir, "in", `batch-${i % 50}`, name);
  const nested = [`f${i % 7}`, `y${i % 11}`, `m${i % 13}`].slice(0, 1 + (i % 3)).join("/");
  const size = 10 + (i % 1000);
  switch (i % 10) {
    case 7:
      return { action: "skip", sourcePath: source, targetPath: join(out, "never", name), size };
    case 8:
      return { action: "move", sourcePath: source, targetPath: join(out, name), size };
    case 9:
      return { action: "skip", sourcePath: join(out, "already", name), targetPath: join(out, name), size };
    default:
      return { action: "move", sourcePath: source, targetPath: join(out, nested, name), size };
  }
}

function rowOf(i: number, placed: Placed): RowInsert {
  return {
    id: `row_${String(i).padStart(6, "0")}`,
    jobId: JOB,
    seq: i,
    ...placed,
    targetKey: placed.targetPath.toLowerCase(),
    mtime: 1_700_000_000_000 + i,
    sha256: i.toString(16).padStart(64, "0"),
    mime: "text/plain",
    category: i % 4 === 0 ? "images" : "documents",
    confidence: 0.4 + (i % 6) / 10,
    reviewBucket: i % 5 === 0 ? "needs_review" : "auto_safe",
    reasonCodes: ["EXTENSION_MATCH"],
    status: "pending",
    conflictIds: [],
    planDigest: "0".repeat(64),
    error: null,
    updatedAt: 1,
  };
}

/** The rows in one transaction, plus the odd ones: a target at the output directory itself, a sibling folder. */
async function seed(): Promise<void> {
  await h.db.insert(jobs).values({
    id: JOB,
    kind: "analyze",
    status: "succeeded",
    phase: "done",
    progress: 1,
    manifestJobId: JOB,
    params: { source_dir: join(h.dir, "in"), output_dir: out, naming_template: "{category}/{name}{ext}" },
    revision: 0,
    planAccumulator: EMPTY_PLAN_ACCUMULATOR,
    actor: "test",
    createdAt: 1,
    updatedAt: 1,
  });
  const all = Array.from({ length: ROWS }, (_, n) => rowOf(n + 1, placeOf(n + 1)));
  const source = (n: number) => join(h.dir, "in", `odd-${n}`);
  all.push(rowOf(ROWS + 1, { action: "move", sourcePath: source(1), targetPath: out, size: 7 }));
  all.push(rowOf(ROWS + 2, { action: "skip", sourcePath: out, targetPath: join(out, "x"), size: 9 }));
  all.push(
    rowOf(ROWS + 3, { action: "move", sourcePath: source(3), targetPath: `${out}-other/a.txt`, size: 5 }),
  );
  const insert = createBulkInserter(rows);
  await h.db.transaction(async (tx) => {
    for (let i = 0; i < all.length; i += 5000) {
      const statement = insert(all.slice(i, i + 5000));
      if (statement !== undefined) await tx.run(statement);
    }
  });
}

/** The grouped view's folders and counts, computed the obvious way: every stored row, one at a time. */
async function countedRowByRow(): Promise<Pick<ManifestView, "folders" | "outside" | "by_action">> {
  const stored = await h.db.select().from(rows).where(eq(rows.jobId, JOB));
  const folders = new Map<string, { files: number; total: number; bytes: number }>();
  const byAction: Record<string, number> = {};
  let outside = 0;
  for (const r of stored) {
    byAction[r.action] = (byAction[r.action] ?? 0) + 1;
    const where = r.action === "move" ? r.targetPath : r.sourcePath;
    if (!isInside(out, where)) {
      outside++;
      continue;
    }
    const rel = posix.dirname(posix.relative(out, where));
    const parts = rel === "." ? [] : rel.split("/");
    for (let i = 0; i <= parts.length; i++) {
      const path = parts.slice(0, i).join("/");
      const f = folders.get(path) ?? { files: 0, total: 0, bytes: 0 };
      if (i === parts.length) f.files++;
      f.total++;
      f.bytes += r.size;
      folders.set(path, f);
    }
  }
  return {
    outside,
    by_action: byAction,
    folders: [...folders.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([path, f]) => ({
        path,
        depth: path === "" ? 0 : path.split("/").length,
        files: f.files,
        total_files: f.total,
        total_bytes: f.bytes,
      })),
  };
}

beforeAll(async () => {
  h = await createHarness({ start: false });
  out = join(h.dir, "out");
  await seed();
}, 60_000);

afterAll(async () => {
  await h.close();
});

describe("a large manifest's first page", () => {
  it("answers the first rows in analyze order, then pages on by cursor through every row once", async () => {
    const first = await h.engine.listRows(JOB, { limit: 200 });
    expect(first.items.map((r) => r.row_id)).toEqual(
      Array.from({ length: 200 }, (_, n) => `row_${String(n + 1).padStart(6, "0")}`),
    );
    expect(first.items[0]).toMatchObject({
      source_path: placeOf(1).sourcePath,
      reason_codes: ["EXTENSION_MATCH"],
    });
    expect(first.next_cursor).not.toBeNull();
    const second = await h.engine.listRows(JOB, { limit: 200, cursor: first.next_cursor ?? undefined });
    expect(second.items[0]?.row_id).toBe("row_000201");
    let seen = 400;
    let previous = "row_000400";
    for (let cursor = second.next_cursor; cursor !== null; ) {
      const page = await h.engine.listRows(JOB, { limit: MAX_PAGE_LIMIT, cursor });
      expect(page.items[0]?.row_id.localeCompare(previous)).toBe(1);
      seen += page.items.length;
      previous = page.items.at(-1)?.row_id ?? previous;
      cursor = page.next_cursor;
    }
    expect(seen).toBe(ROWS + 3);
  });

  it("filters the first page by bucket and category, and keeps a bad cursor CURSOR_INVALID", async () => {
    const page = await h.engine.listRows(JOB, { limit: 50, bucket: "needs_review", category: "images" });
    expect(page.items).toHaveLength(50);
    const matching = (r: ManifestRow) => r.review_bucket === "needs_review" && r.category === "images";
    expect(page.items.every(matching)).toBe(true);
    expect(page.items.map((r) => r.row_id).slice(0, 2)).toEqual(["row_000020", "row_000040"]);
    await expect(h.engine.listRows(JOB, { cursor: "not-a-cursor" })).rejects.toBeInstanceOf(
      CursorInvalidError,
    );
  });

  it("sorts the first page by a saved view's key, then analyze order", async () => {
    const page = await h.engine.listRows(JOB, { limit: 20, sort: [{ field: "size", direction: "desc" }] });
    const sizes = page.items.map((r) => r.size);
    expect(sizes[0]).toBe(1009);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
  });
});

describe("a large manifest's grouped view", () => {
  it("counts every folder exactly as counting row by row does", async () => {
    const view = await h.engine.viewManifest(JOB);
    const expected = await countedRowByRow();
    expect(view.folders).toEqual(expected.folders);
    expect(view.outside).toBe(expected.outside);
    expect(view.by_action).toEqual(expected.by_action);
    // The row planned at the output directory itself counts there; the look-alike sibling is outside.
    expect(view.outside).toBe(ROWS / 10 + 1);
    expect(view.folders[0]).toMatchObject({
      path: "",
      files: ROWS / 10 + 2,
      total_files: ROWS + 3 - view.outside,
    });
    expect(Object.values(view.by_status).reduce((a, b) => a + b, 0)).toBe(ROWS + 3);
  });

  it("reflects an edited target, an edited action and an edit back at once (never stale)", async () => {
    const before = await h.engine.viewManifest(JOB);
    const edited = await h.engine.applyPatches(
      JOB,
      [
        { row_id: "row_000001", patch: { target_path: "edited/deep/one.txt" } },
        { row_id: "row_000002", patch: { action: "skip" } },
      ],
      { actor: "test" },
    );
    const after = await h.engine.viewManifest(JOB);
    expect(after.revision).toBe(edited.revision);
    expect(after.folders.find((f) => f.path === "edited/deep")).toMatchObject({ files: 1, total_files: 1 });
    expect(after.outside).toBe(before.outside + 1);
    expect(after.by_action.skip).toBe((before.by_action.skip ?? 0) + 1);
    expect(after).toMatchObject(await countedRowByRow());

    await h.engine.applyPatches(
      JOB,
      [{ row_id: "row_000001", patch: { target_path: placeOf(1).targetPath } }],
      {
        actor: "test",
      },
    );
    const back = await h.engine.viewManifest(JOB);
    expect(back.folders.some((f) => f.path.startsWith("edited"))).toBe(false);
    expect(back).toMatchObject(await countedRowByRow());
  });

  it("counts folders in one ordered pass over fileorg_rows_place_idx (no sort, no temporary table)", async () => {
    const plan = await h.db.all<{ detail: string }>(
      sql`EXPLAIN QUERY PLAN SELECT action, place_dir, count(*), sum(size) FROM fileorg_rows
          WHERE job_id = ${JOB} GROUP BY job_id, action, place_dir`,
    );
    const details = plan.map((p) => p.detail).join("\n");
    expect(details).toContain("fileorg_rows_place_idx");
    expect(details).not.toContain("TEMP B-TREE");
  });
});
