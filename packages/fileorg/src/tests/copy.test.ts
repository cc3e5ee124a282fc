import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ComposedHarness, createComposedHarness, snapshotTree, writeTree } from "./harness.js";

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
});
