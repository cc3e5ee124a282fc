import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { Conflict } from "../domain/conflict.js";
import { createHarness, type Harness, PNG_1x1, snapshotTree, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local", requestId: "req-test" };

/** A messy tree: nested folders, duplicates, name clashes, unicode and case variants. */
const MESSY: Record<string, string | Buffer> = {
  "inbox/report.pdf.txt": "quarterly",
  "old/report.pdf.txt": "quarterly v2",
  "Photos/holiday.png": PNG_1x1,
  "Photos/copy of holiday.png": PNG_1x1,
  "deep/a/b/c/notes.md": "# notes",
  "Café.txt": "nfc",
  "cafe\u0301.TXT": "nfd",
  "taken.txt": "new content",
  "plain.txt": "plain",
};

function strategyFor(c: Conflict): "rename" | "keep_both" | "skip" {
  return c.kind === "duplicate_content" ? "keep_both" : "rename";
}

async function analyzeMessy(options: Parameters<typeof createHarness>[0] = {}) {
  h = await createHarness(options);
  const src = join(h.dir, "src");
  const out = join(h.dir, "out");
  writeTree(src, MESSY);
  writeTree(out, { "documents/2023/taken.txt": "already here" });
  const job = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
  await h.engine.waitForJob(job.job_id);
  return { h, src, out, jobId: job.job_id };
}

async function resolveAll(harness: Harness, jobId: string) {
  for (;;) {
    const open = (await harness.engine.listConflicts(jobId, { status: "open" })).items;
    if (open.length === 0) return;
    await harness.engine.resolveConflicts(
      jobId,
      { resolutions: open.map((c) => ({ conflict_id: c.conflict_id, strategy: strategyFor(c) })) },
      LOCAL,
    );
  }
}

describe.each([
  ["linking on one device", false],
  ["copy + fsync + verify + unlink (the cross-device path)", true],
])("apply and rollback, %s", (_name, forceCopy) => {
  it("moves every file where the manifest says, byte-identical, then rolls back to the original tree", async () => {
    const { h, src, out, jobId } = await analyzeMessy({ forceCopy });
    const originalSrc = snapshotTree(src);
    const originalOut = snapshotTree(out);
    await resolveAll(h, jobId);
    const rows = (await h.engine.listRows(jobId, { limit: 1000 })).items;
    expect(rows.every((r) => r.review_bucket !== "conflict")).toBe(true);
    const apply = await h.engine.apply(
      { job_id: jobId, plan_hash: (await h.engine.getJob(jobId)).plan_hash ?? "" },
      LOCAL,
    );
    const applied = await h.engine.waitForJob(apply.job_id);
    expect(applied).toMatchObject({ status: "succeeded", result: { moved: rows.length, failed: 0 } });
    for (const row of (await h.engine.listRows(jobId, { limit: 1000 })).items) {
      expect(row.status).toBe("applied");
      expect(existsSync(row.source_path)).toBe(false);
      expect(snapshotTree(out).files[row.target_path.slice(out.length + 1)]).toBe(row.sha256);
    }
    expect(readFileSync(join(out, "documents/2023/taken.txt"), "utf8")).toBe("already here");
    for (const row of rows) expect(Math.trunc(statSync(row.target_path).mtimeMs)).toBe(row.mtime);

    const rollback = await h.engine.rollback({ job_id: apply.job_id }, LOCAL);
    const rolled = await h.engine.waitForJob(rollback.job_id);
    expect(rolled).toMatchObject({ status: "succeeded", result: { moved_back: rows.length, failed: 0 } });
    expect(snapshotTree(src)).toEqual(originalSrc);
    expect(snapshotTree(out)).toEqual(originalOut);
    expect(
      (await h.engine.listRows(jobId, { limit: 1000 })).items.every((r) => r.status === "rolled_back"),
    ).toBe(true);
  });
});

describe("apply safety", () => {
  it("never overwrites a file that appeared at a target after analyze: the row fails and becomes a conflict", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "a.txt": "mine", "b.txt": "other" });
    const job = await h.engine.analyze({ source_dir: src }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    writeTree(src, { "documents/2023/a.txt": "intruder" });
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    expect((await h.engine.waitForJob(apply.job_id)).result).toMatchObject({ moved: 1, failed: 1 });
    expect(readFileSync(join(src, "documents/2023/a.txt"), "utf8")).toBe("intruder");
    expect(readFileSync(join(src, "a.txt"), "utf8")).toBe("mine");
    const row = (await h.engine.listRows(job.job_id, { text: "/a.txt" })).items.find((r) =>
      r.source_path.endsWith("src/a.txt"),
    );
    expect(row).toMatchObject({
      status: "failed",
      error: { code: "TARGET_EXISTS" },
      review_bucket: "conflict",
    });
  });

  it("fails a row whose source changed since analyze and leaves it in place", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "a.txt": "before" });
    const job = await h.engine.analyze({ source_dir: src }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    writeFileSync(join(src, "a.txt"), "after, longer");
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    await h.engine.waitForJob(apply.job_id);
    const [row] = (await h.engine.listRows(job.job_id)).items;
    expect(row).toMatchObject({
      status: "failed",
      error: { code: "SOURCE_CHANGED" },
      review_bucket: "conflict",
    });
    const [conflict] = (await h.engine.listConflicts(job.job_id, { status: "open" })).items;
    expect(conflict?.kind).toBe("source_changed");
    // accepting the new content resolves it, and a new apply moves it
    await h.engine.resolveConflicts(
      job.job_id,
      { resolutions: [{ conflict_id: conflict?.conflict_id ?? "", strategy: "keep_both" }] },
      LOCAL,
    );
    const again = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    expect((await h.engine.waitForJob(again.job_id)).result).toMatchObject({ moved: 1 });
  });

  it("computes a dry run without touching the disk", async () => {
    const { h, src, jobId } = await analyzeMessy();
    const before = snapshotTree(src);
    const dry = await h.engine.apply({ job_id: jobId, dry_run: true }, LOCAL);
    const done = await h.engine.waitForJob(dry.job_id);
    expect(done.result).toMatchObject({ dry_run: true });
    expect(Number(done.result?.would_move)).toBeGreaterThan(0);
    expect(snapshotTree(src)).toEqual(before);
    expect((await h.engine.listRows(jobId, { status: "applied" })).items).toHaveLength(0);
  });

  it("refuses a stale plan hash with PLAN_CHANGED", async () => {
    const { h, jobId } = await analyzeMessy();
    const stale = (await h.engine.getJob(jobId)).plan_hash ?? "";
    await resolveAll(h, jobId);
    await expect(h.engine.apply({ job_id: jobId, plan_hash: stale }, LOCAL)).rejects.toMatchObject({
      code: "PLAN_CHANGED",
    });
  });

  it("lets one of two applies of the same manifest win and refuses edits while it is active", async () => {
    const { h, jobId } = await analyzeMessy();
    // with the runner stopped, the first apply stays queued: deterministic
    await h.engine.stop();
    const first = await h.engine.apply({ job_id: jobId }, LOCAL);
    await expect(h.engine.apply({ job_id: jobId }, LOCAL)).rejects.toMatchObject({ code: "JOB_BUSY" });
    const [row] = (await h.engine.listRows(jobId)).items;
    await expect(h.engine.editRow(jobId, row?.row_id ?? "", { action: "skip" }, LOCAL)).rejects.toMatchObject(
      {
        code: "MANIFEST_LOCKED",
      },
    );
    await h.engine.start();
    expect((await h.engine.waitForJob(first.job_id)).status).toBe("succeeded");
  });
});

describe("rollback safety", () => {
  async function appliedTree() {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "a.txt": "a", "b.txt": "b", "c.txt": "c" });
    const job = await h.engine.analyze({ source_dir: src }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    await h.engine.waitForJob(apply.job_id);
    return { h, src, jobId: job.job_id, applyId: apply.job_id };
  }

  it("leaves a file alone when its hash changed or its source is occupied, and refuses tampered journal records", async () => {
    const { h, src, applyId } = await appliedTree();
    writeFileSync(join(src, "documents/2023/a.txt"), "edited after apply");
    writeFileSync(join(src, "b.txt"), "a new b");
    await h.db.run(
      sql`UPDATE fileorg_journal SET from_path = '/tmp/elsewhere' WHERE from_path LIKE ${"%/c.txt"}`,
    );
    const rollback = await h.engine.rollback({ job_id: applyId }, LOCAL);
    const done = await h.engine.waitForJob(rollback.job_id);
    expect(done.result).toMatchObject({
      moved_back: 0,
      failed: 3,
      by_error: { HASH_MISMATCH: 1, SOURCE_OCCUPIED: 1, JOURNAL_TAMPERED: 1 },
    });
    expect(readFileSync(join(src, "documents/2023/a.txt"), "utf8")).toBe("edited after apply");
    expect(readFileSync(join(src, "b.txt"), "utf8")).toBe("a new b");
    expect(existsSync(join(src, "documents/2023/c.txt"))).toBe(true);
  });

  it("rolls back only the given rows", async () => {
    const { h, src, jobId, applyId } = await appliedTree();
    const row = (await h.engine.listRows(jobId, { text: "b.txt" })).items[0];
    const rollback = await h.engine.rollback({ job_id: applyId, row_ids: [row?.row_id ?? ""] }, LOCAL);
    expect((await h.engine.waitForJob(rollback.job_id)).result).toMatchObject({ moved_back: 1 });
    expect(existsSync(join(src, "b.txt"))).toBe(true);
    expect(existsSync(join(src, "a.txt"))).toBe(false);
    expect(existsSync(join(src, "documents/2023"))).toBe(true);
  });

  it("refuses to roll back a job that is not an apply", async () => {
    const { h, jobId } = await appliedTree();
    await expect(h.engine.rollback({ job_id: jobId }, LOCAL)).rejects.toMatchObject({
      code: "WRONG_JOB_KIND",
    });
  });
});

describe("cancel and retry", () => {
  it("cancels a queued job at once, returns a finished job unchanged, and retries only failed or cancelled jobs", async () => {
    h = await createHarness({ start: false });
    writeTree(join(h.dir, "src"), { "a.txt": "a" });
    const job = await h.engine.analyze({ source_dir: join(h.dir, "src") }, LOCAL);
    const cancelled = await h.engine.cancel(job.job_id, LOCAL);
    expect(cancelled.status).toBe("cancelled");
    expect((await h.engine.cancel(job.job_id, LOCAL)).updated_at).toBe(cancelled.updated_at);
    const retry = await h.engine.retry(job.job_id, LOCAL);
    expect(retry).toMatchObject({ kind: "analyze", status: "queued", retry_of: job.job_id });
    await h.engine.start();
    expect((await h.engine.waitForJob(retry.job_id)).status).toBe("succeeded");
    await expect(h.engine.retry(retry.job_id, LOCAL)).rejects.toMatchObject({ code: "JOB_NOT_RETRYABLE" });
    const events = (await h.engine.listEvents(job.job_id)).items.map((e) => e.type);
    expect(events).toEqual(["created", "cancel_requested", "finished"]);
  });
});

describe("a real cross-device move", () => {
  const shm = "/dev/shm";
  const crossDevice = (() => {
    try {
      return statSync(shm).isDirectory() && statSync(shm).dev !== statSync(tmpdir()).dev;
    } catch {
      return false;
    }
  })();

  it.skipIf(!crossDevice)(
    "copies, verifies and unlinks across devices, and rolls back across them",
    async () => {
      const other = realpathSync(mkdtempSync(join(shm, "fileorg-xdev-")));
      try {
        h = await createHarness({ allowedRoots: [tmpdir(), other] });
        const src = join(h.dir, "src");
        writeTree(src, { "a.txt": "alpha", "deep/b.png": PNG_1x1 });
        const before = snapshotTree(src);
        const job = await h.engine.analyze({ source_dir: src, output_dir: join(other, "out") }, LOCAL);
        await h.engine.waitForJob(job.job_id);
        const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
        expect((await h.engine.waitForJob(apply.job_id)).result).toMatchObject({ moved: 2, failed: 0 });
        expect(snapshotTree(join(other, "out")).files).toEqual({
          "documents/2023/a.txt": before.files["a.txt"],
          "images/2023/b.png": before.files["deep/b.png"],
        });
        expect(Object.keys(snapshotTree(src).files)).toEqual([]);
        const rollback = await h.engine.rollback({ job_id: apply.job_id }, LOCAL);
        expect((await h.engine.waitForJob(rollback.job_id)).result).toMatchObject({ moved_back: 2 });
        expect(snapshotTree(src)).toEqual(before);
        expect(existsSync(join(other, "out"))).toBe(false);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    },
  );
});

describe("cancel and retry of a running apply", () => {
  it("stops at a group boundary with a consistent journal, and the retry moves only the rest", async () => {
    h = await createHarness({ groupSize: 10 });
    const src = join(h.dir, "src");
    const files: Record<string, string> = {};
    for (let i = 0; i < 1500; i++) files[`d${i % 5}/f${i}.txt`] = `file ${i}`;
    writeTree(src, files);
    const job = await h.engine.analyze({ source_dir: src }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    while ((await h.engine.getJob(apply.job_id)).status === "queued")
      await new Promise((r) => setTimeout(r, 1));
    const cancelling = await h.engine.cancel(apply.job_id, LOCAL);
    expect(["cancelling", "succeeded"]).toContain(cancelling.status);
    const cancelled = await h.engine.waitForJob(apply.job_id);
    if (cancelled.status === "succeeded") return; // the machine outran the cancel: nothing left to check
    expect(cancelled.status).toBe("cancelled");
    const open = await h.db.run(sql`SELECT count(*) AS n FROM fileorg_journal WHERE state = 'intent'`);
    expect(Number(open.rows[0]?.n)).toBe(0);
    const moved = Number(cancelled.result?.moved);
    expect(moved % 10).toBe(0);
    expect(moved).toBeLessThan(1500);
    expect((await h.engine.listRows(job.job_id, { status: "applied", limit: 1000 })).items.length).toBe(
      Math.min(moved, 1000),
    );
    const retry = await h.engine.retry(apply.job_id, LOCAL);
    expect(retry.retry_of).toBe(apply.job_id);
    expect((await h.engine.waitForJob(retry.job_id)).result).toMatchObject({
      moved: 1500 - moved,
      failed: 0,
    });
  });
});

describe("symlinks placed after analyze", () => {
  it("refuses to move through a symlinked folder that leads out of the output directory", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const elsewhere = join(h.dir, "elsewhere");
    writeTree(src, { "a.txt": "a", "b.png": PNG_1x1 });
    writeTree(elsewhere, { "keep.txt": "k" });
    const job = await h.engine.analyze({ source_dir: src, output_dir: join(h.dir, "out") }, LOCAL);
    await h.engine.waitForJob(job.job_id);
    writeTree(join(h.dir, "out"), { "images/.keep": "" });
    symlinkSync(elsewhere, join(h.dir, "out", "documents"));
    const apply = await h.engine.apply({ job_id: job.job_id }, LOCAL);
    expect((await h.engine.waitForJob(apply.job_id)).result).toMatchObject({
      moved: 1,
      failed: 1,
      by_error: { OUTSIDE_ROOT: 1 },
    });
    expect(Object.keys(snapshotTree(elsewhere).files)).toEqual(["keep.txt"]);
    expect(readFileSync(join(src, "a.txt"), "utf8")).toBe("a");
  });
});
