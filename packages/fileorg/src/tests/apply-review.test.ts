import { existsSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApplyResult } from "../domain/apply-plan.js";
import type { ManifestRow } from "../domain/manifest.js";
import { createHarness, type Harness, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };

/**
 * A messy folder: three auto_safe files (one inside `thesis/`), three needs_review files (a text file named
 * `.pdf`, an empty file, an unknown type), two files colliding on one target, a symlink to a file and one to
 * a folder.
 */
async function analyzeMess(harness: Harness) {
  const src = join(harness.dir, "src");
  const out = join(harness.dir, "out");
  writeTree(src, {
    "notes.txt": "hello",
    "todo.md": "# todo",
    "thesis/ch1.txt": "chapter one",
    "fake.pdf": "only text, no PDF at all",
    "empty.txt": "",
    "mystery.dat": "?",
    "a/readme.txt": "one",
    "b/readme.txt": "two",
  });
  symlinkSync(join(src, "notes.txt"), join(src, "notes-link"));
  symlinkSync(join(src, "thesis"), join(src, "thesis-link"));
  const analyze = await harness.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
  await harness.engine.waitForJob(analyze.job_id);
  const rows = (await harness.engine.listRows(analyze.job_id, { limit: 100 })).items;
  const named = (suffix: string): ManifestRow => {
    const row = rows.find((r) => r.source_path.endsWith(suffix));
    if (row === undefined) throw new Error(`no row for ${suffix}`);
    return row;
  };
  return { jobId: analyze.job_id, src, out, rows, named };
}

async function runApply(harness: Harness, request: Parameters<Harness["engine"]["apply"]>[0]) {
  const queued = await harness.engine.apply(request, LOCAL);
  const done = await harness.engine.waitForJob(queued.job_id);
  expect(done.status).toBe("succeeded");
  return ApplyResult.parse(done.result);
}

describe("apply moves only what was reviewed", () => {
  it("by default moves auto_safe rows and edited rows, and reports the needs_review rows nobody looked at as unreviewed", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    expect(
      m.rows
        .filter((r) => r.review_bucket === "needs_review")
        .map((r) => r.source_path)
        .sort(),
    ).toEqual(
      [m.named("empty.txt"), m.named("fake.pdf"), m.named("mystery.dat")].map((r) => r.source_path).sort(),
    );
    // A person edits one needs_review row: it counts as reviewed.
    await h.engine.editRow(m.jobId, m.named("mystery.dat").row_id, { category: "documents" }, LOCAL);

    const plan = await h.engine.planApply({ job_id: m.jobId });
    expect(plan.selection).toEqual({ default: true, buckets: [], row_ids: 0 });
    expect(plan.by_bucket.auto_safe).toEqual({ moves: 3, stays: {} });
    expect(plan.by_bucket.needs_review).toEqual({ moves: 1, stays: { unreviewed: 2 } });
    expect(plan.by_bucket.conflict).toEqual({ moves: 0, stays: { conflict_open: 2 } });
    expect(plan.by_bucket.blocked).toEqual({ moves: 0, stays: { blocked: 2 } });
    expect(plan).toMatchObject({ rows: 4, included_unreviewed: 0 });

    const dry = await runApply(h, { job_id: m.jobId, dry_run: true });
    expect(dry).toMatchObject({ rows: 4, would_move: 4, would_fail: 0, by_bucket: plan.by_bucket });
    expect(dry.stays).toEqual({ unreviewed: 2, conflict_open: 2, blocked: 2 });

    const applied = await runApply(h, { job_id: m.jobId });
    expect(applied).toMatchObject({ rows: 4, moved: 4, failed: 0, by_bucket: plan.by_bucket });
    for (const name of ["fake.pdf", "empty.txt", "a/readme.txt", "b/readme.txt"]) {
      expect(existsSync(join(m.src, name))).toBe(true);
    }
    for (const name of ["notes.txt", "todo.md", "thesis/ch1.txt", "mystery.dat"]) {
      expect(existsSync(join(m.src, name))).toBe(false);
    }
  });

  it("moves needs_review rows only when the request names them (row_ids, buckets), and says so", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    const fake = m.named("fake.pdf");
    const byIds = await runApply(h, { job_id: m.jobId, row_ids: [fake.row_id] });
    expect(byIds).toMatchObject({ moved: 1, included_unreviewed: 1 });
    expect(byIds.selection).toEqual({ default: false, buckets: [], row_ids: 1 });
    expect(byIds.by_bucket.needs_review).toEqual({ moves: 1, stays: { unreviewed: 2 } });
    // Named rows only: the auto_safe rows were not named this time.
    expect(byIds.by_bucket.auto_safe).toEqual({ moves: 0, stays: { not_selected: 3 } });
    expect(existsSync(fake.target_path)).toBe(true);
    expect(existsSync(fake.source_path)).toBe(false);

    const byBucket = await runApply(h, { job_id: m.jobId, buckets: ["needs_review"] });
    expect(byBucket).toMatchObject({ moved: 2, included_unreviewed: 2 });
    expect(byBucket.selection).toEqual({ default: false, buckets: ["needs_review"], row_ids: 0 });
    expect(byBucket.by_bucket.needs_review).toEqual({ moves: 2, stays: { already_applied: 1 } });
    expect(existsSync(m.named("empty.txt").source_path)).toBe(false);
  });

  it("refuses row_ids that are not rows of the manifest", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    await expect(h.engine.apply({ job_id: m.jobId, row_ids: ["row_nope"] }, LOCAL)).rejects.toMatchObject({
      code: "UNKNOWN_ROW_IDS",
    });
    await expect(h.engine.planApply({ job_id: m.jobId, row_ids: ["row_nope"] })).rejects.toMatchObject({
      code: "UNKNOWN_ROW_IDS",
    });
  });

  it("never moves a row in an open conflict, even when named, and reports it conflict_open", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    const clash = m.named("a/readme.txt");
    expect(clash.review_bucket).toBe("conflict");
    const result = await runApply(h, {
      job_id: m.jobId,
      buckets: ["auto_safe", "needs_review"],
      row_ids: [clash.row_id],
    });
    expect(result.by_bucket.conflict).toEqual({ moves: 0, stays: { conflict_open: 2 } });
    expect(existsSync(clash.source_path)).toBe(true);
  });

  it("warns about a symlink to a moved file and a folder link whose folder was emptied, in the dry run and the apply", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    const dry = await runApply(h, { job_id: m.jobId, dry_run: true });
    const fileLink = {
      code: "SYMLINK_TARGET_MOVED",
      row_id: m.named("notes-link").row_id,
      link: join(m.src, "notes-link"),
      target: join(m.src, "notes.txt"),
      moved_to: m.named("notes.txt").target_path,
    };
    const folderLink = {
      code: "FOLDER_LINK_TARGET_MOVED",
      row_id: m.named("thesis-link").row_id,
      link: join(m.src, "thesis-link"),
      target: join(m.src, "thesis"),
      files_moved: 1,
    };
    expect(dry.warnings).toEqual(expect.arrayContaining([fileLink, folderLink]));
    expect(dry.warnings).toHaveLength(2);

    const applied = await runApply(h, { job_id: m.jobId });
    expect(applied.warnings).toEqual(expect.arrayContaining([fileLink, { ...folderLink, dangling: true }]));
    expect(applied.moved_link_targets).toBe(2);
    expect(existsSync(join(m.src, "thesis"))).toBe(false);
  });

  it("takes skipped rows out of the review queue: a skipped empty file is no longer needs_review", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    const empty = m.named("empty.txt");
    const mystery = m.named("mystery.dat");
    // A triage (not a person's edit) skips the empty file; a person sets the unknown file to skip.
    await h.engine.applyPatches(m.jobId, [{ row_id: empty.row_id, patch: { action: "skip" } }], {
      ...LOCAL,
      personEdit: false,
    });
    await h.engine.editRow(m.jobId, mystery.row_id, { action: "skip" }, LOCAL);
    const after = await h.engine.listRows(m.jobId, { bucket: "needs_review" });
    expect(after.items.map((r) => r.source_path)).toEqual([m.named("fake.pdf").source_path]);

    const applied = await runApply(h, { job_id: m.jobId });
    expect(applied.by_bucket.auto_safe).toEqual({ moves: 3, stays: { skipped: 2 } });
    expect(applied.stays).toMatchObject({ skipped: 2, unreviewed: 1 });
    const rows = (await h.engine.listRows(m.jobId, { limit: 100 })).items;
    const skipped = rows.filter((r) => r.status === "skipped");
    expect(skipped.map((r) => [r.source_path, r.review_bucket])).toEqual(
      expect.arrayContaining([
        [empty.source_path, "auto_safe"],
        [mystery.source_path, "auto_safe"],
      ]),
    );
    expect(existsSync(empty.source_path)).toBe(true);
  });

  it("reports SOURCE_CHANGED in the dry run for a file changed since analyze, exactly as the apply does", async () => {
    h = await createHarness();
    const m = await analyzeMess(h);
    const notes = m.named("notes.txt");
    // Same size, mtime put back: only the inode's ctime tells the change.
    const before = statSync(notes.source_path);
    writeFileSync(notes.source_path, "HELLO");
    utimesSync(notes.source_path, before.atime, before.mtime);
    // Content rewritten: another size.
    writeFileSync(m.named("todo.md").source_path, "# todo, longer now");

    const dry = await runApply(h, { job_id: m.jobId, dry_run: true });
    expect(dry).toMatchObject({ would_move: 1, would_fail: 2, by_error: { SOURCE_CHANGED: 2 } });
    const applied = await runApply(h, { job_id: m.jobId });
    expect(applied).toMatchObject({ moved: 1, failed: 2, by_error: { SOURCE_CHANGED: 2 } });
    expect(existsSync(notes.source_path)).toBe(true);
  });
});
