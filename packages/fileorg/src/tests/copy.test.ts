import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { createJournalSigner } from "../engine/journal.js";
import { jobs, journal } from "../store/schema.js";
import { type ComposedHarness, createComposedHarness, snapshotTree, TEST_KEY, writeTree } from "./harness.js";

let h: ComposedHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local", requestId: "req-copy" };

/** Scans are copied (kept in place too); 2024 scans are documents as well; notes anywhere are skipped. */
const RULES = `version: 1
locations:
  - path: Scans
    rules:
      - name: Copy scans
        filters: { extension: pdf }
        actions: { copy: true, target: "archive/{name}{ext}" }
  - path: Scans/2024
    rules:
      - name: Copy this year's scans
        filters: { extension: pdf }
        actions: { copy: true, target: "archive/2024/{name}{ext}" }
rules:
  - name: Skip notes
    filters: { extension: [md, pdf] }
    actions: { skip: true }
`;

const sha = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

async function setUp() {
  h = await createComposedHarness();
  const { fileorg, review } = h;
  const src = join(h.dir, "src");
  const out = join(h.dir, "out");
  writeTree(src, {
    "Scans/a.pdf": "%PDF-1.4 scan a",
    "Scans/2024/b.pdf": "%PDF-1.4 scan b",
    "loose.pdf": "%PDF-1.4 loose",
    "notes.md": "# notes\n",
  });
  const job = await fileorg.analyze({ source_dir: src, output_dir: out }, LOCAL);
  expect((await fileorg.waitForJob(job.job_id)).status).toBe("succeeded");
  const run = await review.runRulesFile(job.job_id, RULES, LOCAL);
  return { fileorg, review, src, out, jobId: job.job_id, run };
}

describe("a rules file with locations and copy: true", () => {
  it("acts on each location's rows (most specific first, then the global rules) and names each rule's line", async () => {
    const { fileorg, src, out, jobId, run } = await setUp();
    expect(run.rules.map((r) => [r.name, r.line, r.location, r.matched])).toEqual([
      ["Copy scans", 5, "Scans", 1],
      ["Copy this year's scans", 10, "Scans/2024", 1],
      ["Skip notes", 14, undefined, 2],
    ]);
    const rows = new Map(
      (await fileorg.listRows(jobId)).items.map((r) => [r.source_path.slice(src.length + 1), r]),
    );
    expect(rows.get("Scans/a.pdf")).toMatchObject({
      action: "copy",
      target_path: join(out, "archive/a.pdf"),
    });
    expect(rows.get("Scans/2024/b.pdf")).toMatchObject({
      action: "copy",
      target_path: join(out, "archive/2024/b.pdf"),
    });
    expect(rows.get("loose.pdf")?.action).toBe("skip");
    expect(rows.get("notes.md")?.action).toBe("skip");
  });

  it("copies at apply (the source stays, the copy has its hash) and rollback removes exactly the copies", async () => {
    const { fileorg, src, out, jobId } = await setUp();
    const before = snapshotTree(src);
    const applied = await fileorg.waitForJob(
      (await fileorg.apply({ job_id: jobId, buckets: ["auto_safe", "needs_review"] }, LOCAL)).job_id,
    );
    expect(applied.result).toMatchObject({ moved: 2, copied: 2, failed: 0 });
    expect(snapshotTree(src)).toEqual(before);
    expect(sha(join(out, "archive/a.pdf"))).toBe(sha(join(src, "Scans/a.pdf")));
    expect(sha(join(out, "archive/2024/b.pdf"))).toBe(sha(join(src, "Scans/2024/b.pdf")));
    // No temp file is left beside a copy.
    expect(readdirSync(join(out, "archive")).sort()).toEqual(["2024", "a.pdf"]);

    const rolled = await fileorg.waitForJob(
      (await fileorg.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 2, failed: 0 });
    expect(snapshotTree(src)).toEqual(before);
    expect(existsSync(join(out, "archive"))).toBe(false);
    const rows = (await fileorg.listRows(jobId)).items.filter((r) => r.action === "copy");
    expect(rows.map((r) => r.status)).toEqual(["rolled_back", "rolled_back"]);
  });

  it("rollback keeps a copy changed since apply (not the recorded hash) and says so; the source is untouched", async () => {
    const { fileorg, src, out, jobId } = await setUp();
    const before = snapshotTree(src);
    const applied = await fileorg.waitForJob(
      (await fileorg.apply({ job_id: jobId, buckets: ["auto_safe", "needs_review"] }, LOCAL)).job_id,
    );
    expect(applied.result).toMatchObject({ copied: 2, failed: 0 });
    writeFileSync(join(out, "archive/a.pdf"), "edited since");
    const rolled = await fileorg.waitForJob(
      (await fileorg.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 1, failed: 1, by_error: { HASH_MISMATCH: 1 } });
    expect(readFileSync(join(out, "archive/a.pdf"), "utf8")).toBe("edited since");
    expect(existsSync(join(out, "archive/2024/b.pdf"))).toBe(false);
    expect(snapshotTree(src)).toEqual(before);
    const row = (await fileorg.listRows(jobId)).items.find((r) => r.source_path.endsWith("Scans/a.pdf"));
    expect(row).toMatchObject({ status: "applied", error: { code: "HASH_MISMATCH" } });
  });

  it("never overwrites: a copy target that appeared after the plan fails TARGET_EXISTS and stays as it was", async () => {
    const { fileorg, src, out, jobId } = await setUp();
    writeTree(out, { "archive/a.pdf": "someone else's" });
    const applied = await fileorg.waitForJob(
      (await fileorg.apply({ job_id: jobId, buckets: ["auto_safe", "needs_review"] }, LOCAL)).job_id,
    );
    expect(applied.result).toMatchObject({ copied: 1, failed: 1, by_error: { TARGET_EXISTS: 1 } });
    expect(readFileSync(join(out, "archive/a.pdf"), "utf8")).toBe("someone else's");
    expect(readFileSync(join(src, "Scans/a.pdf"), "utf8")).toBe("%PDF-1.4 scan a");
  });

  it.each([
    ["right after the refused link (its inode recorded)", true],
    ["before its link was tried (no inode recorded yet)", false],
  ])(
    "recovery never claims an identical file that appeared at a copy's target: a crash %s",
    async (_, linked) => {
      const { src, out, jobId } = await setUp();
      const harness = h;
      if (harness === undefined) throw new Error("no harness");
      // Someone else's file, with the very bytes of the copy, appears at the target before the link.
      writeTree(out, { "archive/a.pdf": "%PDF-1.4 scan a" });
      const foreign = statSync(join(out, "archive/a.pdf")).ino;
      const applied = await harness.engine.waitForJob(
        (await harness.engine.apply({ job_id: jobId, buckets: ["auto_safe", "needs_review"] }, LOCAL)).job_id,
      );
      expect(applied.result).toMatchObject({ copied: 1, failed: 1, by_error: { TARGET_EXISTS: 1 } });
      // The state a crash right after the refused link leaves: the copy's intent still open (its inode was
      // recorded before the link), its temp file beside the target, the job running under a dead lease.
      const [refused] = await harness.db
        .select()
        .from(journal)
        .where(and(eq(journal.jobId, applied.job_id), eq(journal.op, "copy"), eq(journal.state, "failed")));
      if (refused === undefined) throw new Error("no refused copy in the journal");
      expect(refused.copyIno).not.toBeNull();
      const unlinked = { copyDev: null, copyIno: null };
      const signature = createJournalSigner(TEST_KEY).sign({ ...refused, ...unlinked });
      await harness.db
        .update(journal)
        .set({
          state: "intent",
          errorCode: null,
          completedAt: null,
          ...(linked ? {} : { ...unlinked, signature }),
        })
        .where(eq(journal.id, refused.id));
      writeFileSync(join(out, `archive/.a.pdf.vetted-tmp-${refused.id}`), "%PDF-1.4 scan a");
      await harness.db
        .update(jobs)
        .set({ status: "running", leaseOwner: "another-host:4242:abcdef", leaseExpiresAt: Date.now() - 1 })
        .where(eq(jobs.id, applied.job_id));

      expect(await harness.engine.recover()).toEqual([
        { jobId: applied.job_id, resolved: { done: 0, not_done: 1, missing: 0, tampered: 0 } },
      ]);
      expect(readdirSync(join(out, "archive")).sort()).toEqual(["2024", "a.pdf"]);
      const rolled = await harness.engine.waitForJob(
        (await harness.engine.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
      );
      expect(rolled.result).toMatchObject({ moved_back: 1, failed: 0 });
      // The identical foreign file is left alone; only our copy went.
      expect(statSync(join(out, "archive/a.pdf")).ino).toBe(foreign);
      expect(readFileSync(join(out, "archive/a.pdf"), "utf8")).toBe("%PDF-1.4 scan a");
      expect(existsSync(join(out, "archive/2024/b.pdf"))).toBe(false);
      expect(readFileSync(join(src, "Scans/a.pdf"), "utf8")).toBe("%PDF-1.4 scan a");
    },
  );

  it("rollback keeps an identical file that replaced a copy (not the inode apply wrote) and says so", async () => {
    const { fileorg, src, out, jobId } = await setUp();
    const before = snapshotTree(src);
    const applied = await fileorg.waitForJob(
      (await fileorg.apply({ job_id: jobId, buckets: ["auto_safe", "needs_review"] }, LOCAL)).job_id,
    );
    expect(applied.result).toMatchObject({ copied: 2, failed: 0 });
    // Someone else's file with the same bytes takes the copy's name (renamed over it: written while the copy
    // still exists, so it cannot reuse the copy's freed inode number).
    writeFileSync(join(out, "theirs.pdf"), "%PDF-1.4 scan a");
    renameSync(join(out, "theirs.pdf"), join(out, "archive/a.pdf"));
    const rolled = await fileorg.waitForJob(
      (await fileorg.rollback({ job_id: applied.job_id }, LOCAL)).job_id,
    );
    expect(rolled.result).toMatchObject({ moved_back: 1, failed: 1, by_error: { SOURCE_CHANGED: 1 } });
    expect(readFileSync(join(out, "archive/a.pdf"), "utf8")).toBe("%PDF-1.4 scan a");
    expect(existsSync(join(out, "archive/2024/b.pdf"))).toBe(false);
    expect(snapshotTree(src)).toEqual(before);
  });
});
