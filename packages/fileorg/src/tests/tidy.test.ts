import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { createFileorgEngine } from "../engine/engine.js";
import { jobs, journal } from "../store/schema.js";
import { createHarness, type Harness, snapshotTree, TEST_KEY, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local", requestId: "req-tidy" };

async function analyze(harness: Harness, src: string, out: string) {
  const job = await harness.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
  const done = await harness.engine.waitForJob(job.job_id);
  expect(done.status).toBe("succeeded");
  return job.job_id;
}

async function applyAll(
  harness: Harness,
  jobId: string,
  extra: { buckets?: Array<"auto_safe" | "needs_review"> } = {},
) {
  const apply = await harness.engine.apply({ job_id: jobId, ...extra }, LOCAL);
  return harness.engine.waitForJob(apply.job_id);
}

describe("tidy apply", () => {
  it("removes the source folders it emptied (journaled, deepest first), keeps the rest, and rollback restores them", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, {
      "deep/a/b/notes.txt": "notes",
      "deep/a/other.txt": "other",
      "kept/keep.txt": "keep",
      "kept/.hidden": "a hidden file is not analyzed, so its folder is not empty",
      "top.txt": "top",
    });
    mkdirSync(join(src, "was-empty"));
    const before = snapshotTree(src);
    const jobId = await analyze(h, src, out);
    const applied = await applyAll(h, jobId);
    expect(applied).toMatchObject({ status: "succeeded", completed_with_errors: false });
    expect(applied.result).toMatchObject({ moved: 4, failed: 0, folders_removed: 3 });
    expect(existsSync(join(src, "deep"))).toBe(false);
    expect(readdirSync(join(src, "kept"))).toEqual([".hidden"]);
    expect(existsSync(join(src, "was-empty"))).toBe(true); // not emptied by the apply
    expect(existsSync(src)).toBe(true); // the source root always stays
    const rmdirs = await h.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, applied.job_id), eq(journal.op, "rmdir")));
    // Only folders found empty are journaled ("kept" holds a hidden file: never touched).
    expect(rmdirs.map((r) => [r.toPath.slice(src.length + 1), r.state])).toEqual([
      ["deep/a/b", "done"],
      ["deep/a", "done"],
      ["deep", "done"],
    ]);

    const rollback = await h.engine.rollback({ job_id: applied.job_id }, LOCAL);
    const rolled = await h.engine.waitForJob(rollback.job_id);
    expect(rolled.result).toMatchObject({ moved_back: 4, failed: 0, directories_restored: 3 });
    expect(snapshotTree(src)).toEqual(before);
  });

  it("restores a removed folder even when none of its files can go back", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "gone/x.txt": "x" });
    const jobId = await analyze(h, src, out);
    const applied = await applyAll(h, jobId);
    expect(existsSync(join(src, "gone"))).toBe(false);
    expect(readdirSync(src)).toEqual([]); // emptied, but the source root itself always stays
    const [row] = (await h.engine.listRows(jobId)).items;
    writeFileSync(row?.target_path ?? "", "changed after apply");
    const rolled = await h.engine.waitForJob(
      (await h.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled).toMatchObject({
      status: "succeeded",
      completed_with_errors: true,
      result: { failed_rows: 1, by_error: { HASH_MISMATCH: 1 } },
    });
    expect(readdirSync(join(src, "gone"))).toEqual([]);
  });

  it("recovery settles a folder removal a crash interrupted (done when gone, not done when there), and rollback restores it", async () => {
    let now = 1_000_000;
    h = await createHarness({ clock: () => now, leaseMs: 5000 });
    const src = join(h.dir, "src");
    writeTree(src, { "gone/a.txt": "a", "stays/b.txt": "b" });
    const before = snapshotTree(src);
    const jobId = await analyze(h, src, join(h.dir, "out"));
    const applied = await applyAll(h, jobId);
    expect(applied.result).toMatchObject({ moved: 2, folders_removed: 2 });
    // As if the process died after removing "gone" and before removing "stays": both intents still open.
    mkdirSync(join(src, "stays"));
    await h.db
      .update(journal)
      .set({ state: "intent", completedAt: null })
      .where(and(eq(journal.jobId, applied.job_id), eq(journal.op, "rmdir")));
    await h.db
      .update(jobs)
      .set({ status: "running", leaseOwner: "another-host:4242:abcdef", leaseExpiresAt: now + 5000 })
      .where(eq(jobs.id, applied.job_id));
    now += 5001;
    expect((await h.engine.recover()).map((r) => r.jobId)).toEqual([applied.job_id]);
    const rmdirs = await h.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, applied.job_id), eq(journal.op, "rmdir")));
    expect(rmdirs.map((r) => [r.toPath.slice(src.length + 1), r.state]).sort()).toEqual([
      ["gone", "done"],
      ["stays", "not_done"],
    ]);
    const rolled = await h.engine.waitForJob(
      (await h.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 2, failed: 0, directories_restored: 1 });
    expect(snapshotTree(src)).toEqual(before);
  });

  it("never removes an allowed root, even when the apply emptied it", async () => {
    h = await createHarness({ start: false });
    const src = join(h.dir, "src");
    const rootish = join(src, "rootish");
    writeTree(src, { "rootish/x.txt": "x", "plain/y.txt": "y" });
    const client = createClient({ url: `file:${h.dbPath}`, timeout: 5000 });
    const engine = createFileorgEngine({
      db: drizzle(client),
      allowedRoots: [h.dir, rootish],
      journalKey: TEST_KEY,
    });
    await engine.start();
    try {
      const job = await engine.analyze({ source_dir: src, output_dir: join(h.dir, "out") }, LOCAL);
      await engine.waitForJob(job.job_id);
      const applied = await engine.waitForJob((await engine.apply({ job_id: job.job_id }, LOCAL)).job_id);
      expect(applied.result).toMatchObject({ moved: 2, folders_removed: 1 });
      expect(readdirSync(rootish)).toEqual([]);
      expect(existsSync(join(src, "plain"))).toBe(false);
    } finally {
      await engine.stop();
      client.close();
    }
  });

  it("lists a symlink and a FIFO as skipped rows with reasons, and reports a moved link target", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "docs/target.txt": "the target" });
    symlinkSync("docs/target.txt", join(src, "link-to-target"));
    symlinkSync(join(h.dir, "elsewhere"), join(src, "dangling"));
    execFileSync("mkfifo", [join(src, "pipe")]);
    const jobId = await analyze(h, src, out);
    const rows = (await h.engine.listRows(jobId)).items;
    const by = (name: string) => rows.find((r) => r.source_path === join(src, name));
    expect(by("link-to-target")).toMatchObject({
      action: "skip",
      review_bucket: "blocked",
      target_path: join(src, "link-to-target"),
      error: { code: "SYMLINK" },
    });
    expect(by("link-to-target")?.reason_codes).toContain("SYMLINK");
    expect(by("link-to-target")?.error?.message).toContain(join(src, "docs/target.txt"));
    expect(by("dangling")?.reason_codes).toContain("SYMLINK");
    expect(by("pipe")).toMatchObject({ action: "skip", error: { code: "SPECIAL_FILE" } });
    expect(by("pipe")?.reason_codes).toContain("SPECIAL_FILE");
    const analyzed = await h.engine.getJob(jobId);
    expect(analyzed.result).toMatchObject({ files: 4, special_entries: 3 });

    const applied = await applyAll(h, jobId);
    expect(applied.result).toMatchObject({ moved: 1, failed: 0, moved_link_targets: 1 });
    expect(applied.result?.warnings).toEqual([
      {
        code: "SYMLINK_TARGET_MOVED",
        row_id: by("link-to-target")?.row_id,
        link: join(src, "link-to-target"),
        target: join(src, "docs/target.txt"),
        moved_to: join(out, "documents/2023/target.txt"),
      },
    ]);
    // Never moved, never followed: the links and the FIFO stay where they were, as skipped rows.
    expect(existsSync(join(src, "pipe"))).toBe(true);
    const after = (await h.engine.listRows(jobId)).items;
    expect(
      after
        .filter((r) => r.status === "skipped")
        .map((r) => r.source_path)
        .sort(),
    ).toEqual([join(src, "dangling"), join(src, "link-to-target"), join(src, "pipe")].sort());
  });

  it("ends a partly failed apply succeeded with completed_with_errors and a finished_with_errors event", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "a.txt": "mine", "b.txt": "fine" });
    const jobId = await analyze(h, src, out);
    writeTree(out, { "documents/2023/a.txt": "an intruder after analyze" });
    const applied = await applyAll(h, jobId);
    expect(applied).toMatchObject({
      status: "succeeded",
      completed_with_errors: true,
      result: { moved: 1, failed_rows: 1, completed_with_errors: true, by_error: { TARGET_EXISTS: 1 } },
    });
    const types = (await h.engine.listEvents(applied.job_id, 0)).items.map((e) => e.type);
    expect(types.slice(-2)).toEqual(["finished_with_errors", "finished"]);
    expect(readFileSync(join(out, "documents/2023/a.txt"), "utf8")).toBe("an intruder after analyze");
  });

  it("a clean apply emits no finished_with_errors event", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "a.txt": "mine" });
    const jobId = await analyze(h, src, join(h.dir, "out"));
    const applied = await applyAll(h, jobId);
    expect(applied.completed_with_errors).toBe(false);
    const types = (await h.engine.listEvents(applied.job_id, 0)).items.map((e) => e.type);
    expect(types).not.toContain("finished_with_errors");
  });
});

describe("move_to_duplicates", () => {
  it("moves every other copy into _duplicates/ under the output root, never over anything, and rollback restores it", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, {
      "one/report.txt": "same bytes",
      "two/report.txt": "same bytes",
      "three/copy.txt": "same bytes",
    });
    writeTree(out, { "_duplicates/report.txt": "someone else's file" });
    const before = snapshotTree(src);
    const jobId = await analyze(h, src, out);
    const open = (await h.engine.listConflicts(jobId, { status: "open" })).items;
    const dup = open.find((c) => c.kind === "duplicate_content");
    expect(dup).toBeDefined();
    const resolved = await h.engine.resolveConflicts(
      jobId,
      { resolutions: [{ conflict_id: dup?.conflict_id ?? "", strategy: "move_to_duplicates" }] },
      LOCAL,
    );
    // The copies left documents/2023/report.txt to the first one: the name clash is gone with them.
    expect((await h.engine.listConflicts(jobId, { status: "open" })).items).toEqual([]);
    expect(resolved.conflicts[0]).toMatchObject({ status: "resolved", resolution: "move_to_duplicates" });
    const rows = (await h.engine.listRows(jobId)).items.sort((a, b) =>
      a.source_path.localeCompare(b.source_path),
    );
    const targets = rows.map((r) => r.target_path.slice(out.length + 1)).sort();
    expect(targets).toEqual([
      "_duplicates/copy.txt",
      "_duplicates/report (2).txt",
      "documents/2023/report.txt",
    ]);
    const applied = await applyAll(h, jobId);
    expect(applied.result).toMatchObject({ moved: 3, failed: 0 });
    expect(readFileSync(join(out, "_duplicates/report.txt"), "utf8")).toBe("someone else's file");
    expect(readFileSync(join(out, "_duplicates/report (2).txt"), "utf8")).toBe("same bytes");

    const rolled = await h.engine.waitForJob(
      (await h.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 3, failed: 0 });
    expect(snapshotTree(src)).toEqual(before);
    expect(readdirSync(join(out, "_duplicates"))).toEqual(["report.txt"]);
  });

  it("refuses move_to_duplicates for a conflict that is not about duplicate content", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "x/a.txt": "one", "y/a.txt": "two" });
    const jobId = await analyze(h, src, join(h.dir, "out"));
    const [c] = (await h.engine.listConflicts(jobId, { status: "open" })).items;
    expect(c?.kind).toBe("duplicate_target");
    await expect(
      h.engine.resolveConflicts(
        jobId,
        { resolutions: [{ conflict_id: c?.conflict_id ?? "", strategy: "move_to_duplicates" }] },
        LOCAL,
      ),
    ).rejects.toMatchObject({ code: "STRATEGY_NOT_APPLICABLE" });
  });
});

describe("apply by bucket", () => {
  it("moves only auto_safe rows when asked, leaving the rest for review and a later apply", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "sure.txt": "text", "unsure.zzz": "unknown kind" });
    const jobId = await analyze(h, src, out);
    const rows = (await h.engine.listRows(jobId)).items;
    expect(rows.map((r) => r.review_bucket).sort()).toEqual(["auto_safe", "needs_review"]);
    const first = await applyAll(h, jobId, { buckets: ["auto_safe"] });
    expect(first.result).toMatchObject({ moved: 1, failed: 0 });
    expect(existsSync(join(src, "unsure.zzz"))).toBe(true);
    // A plain apply leaves the row nobody reviewed; naming its bucket moves it.
    const second = await applyAll(h, jobId);
    expect(second.result).toMatchObject({ moved: 0, stays: { unreviewed: 1, already_applied: 1 } });
    const third = await applyAll(h, jobId, { buckets: ["needs_review"] });
    expect(third.result).toMatchObject({ moved: 1, failed: 0, included_unreviewed: 1 });
    expect(existsSync(join(src, "unsure.zzz"))).toBe(false);
  });
});
