import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApplyRequest } from "../domain/job.js";
import { createHarness, type Harness, writeTree } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };

describe("apply limited to review buckets", () => {
  it("moves only the auto_safe rows when asked and leaves the needs_review rows in place", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    const out = join(h.dir, "out");
    writeTree(src, { "notes.txt": "hello", "todo.md": "# todo", "mystery.dat": "?", "blob.bin": "??" });
    const analyze = await h.engine.analyze({ source_dir: src, output_dir: out }, LOCAL);
    await h.engine.waitForJob(analyze.job_id);
    const rows = (await h.engine.listRows(analyze.job_id)).items;
    const safe = rows.filter((r) => r.review_bucket === "auto_safe");
    const review = rows.filter((r) => r.review_bucket === "needs_review");
    expect([safe.length, review.length]).toEqual([2, 2]);

    const dry = await h.engine.apply(
      { job_id: analyze.job_id, dry_run: true, buckets: ["auto_safe"] },
      LOCAL,
    );
    expect((await h.engine.waitForJob(dry.job_id)).result).toMatchObject({ rows: 2, would_move: 2 });

    const apply = await h.engine.apply({ job_id: analyze.job_id, buckets: ["auto_safe"] }, LOCAL);
    const done = await h.engine.waitForJob(apply.job_id);
    expect(done.params.buckets).toEqual(["auto_safe"]);
    expect(done.result).toMatchObject({ rows: 2, moved: 2, failed: 0 });
    for (const row of safe) expect(existsSync(row.target_path)).toBe(true);
    for (const row of review) {
      expect(existsSync(row.source_path)).toBe(true);
      expect(existsSync(row.target_path)).toBe(false);
    }
    const after = await h.engine.listRows(analyze.job_id, { bucket: "needs_review" });
    expect(after.items.map((r) => r.status)).toEqual(["pending", "pending"]);

    // A plain apply afterwards leaves the needs_review rows nobody reviewed; naming the bucket moves them.
    const plain = await h.engine.apply({ job_id: analyze.job_id }, LOCAL);
    expect((await h.engine.waitForJob(plain.job_id)).result).toMatchObject({
      moved: 0,
      stays: { unreviewed: 2 },
    });
    const rest = await h.engine.apply({ job_id: analyze.job_id, buckets: ["needs_review"] }, LOCAL);
    expect((await h.engine.waitForJob(rest.job_id)).result).toMatchObject({ moved: 2 });
  });

  it("keeps the limit when a cancelled apply is retried", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "notes.txt": "hello", "mystery.dat": "?" });
    const analyze = await h.engine.analyze({ source_dir: src, output_dir: join(h.dir, "out") }, LOCAL);
    await h.engine.waitForJob(analyze.job_id);
    await h.engine.stop();
    const apply = await h.engine.apply({ job_id: analyze.job_id, buckets: ["auto_safe"] }, LOCAL);
    expect((await h.engine.cancel(apply.job_id, LOCAL)).status).toBe("cancelled");
    const retry = await h.engine.retry(apply.job_id, LOCAL);
    expect([retry.retry_of, retry.params.buckets]).toEqual([apply.job_id, ["auto_safe"]]);
  });

  it("refuses buckets that never move (blocked, conflict) and an empty list", () => {
    expect(ApplyRequest.safeParse({ job_id: "job_1", buckets: ["conflict"] }).success).toBe(false);
    expect(ApplyRequest.safeParse({ job_id: "job_1", buckets: [] }).success).toBe(false);
    expect(ApplyRequest.safeParse({ job_id: "job_1", buckets: ["needs_review", "auto_safe"] }).success).toBe(
      true,
    );
  });
});
