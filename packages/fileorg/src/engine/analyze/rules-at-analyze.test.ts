import { statSync } from "node:fs";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { brokenJobLimit, limitsOf } from "../../domain/pack-rules.js";
import { rows } from "../../store/schema.js";
import { createHarness, type Harness, PDF_1PAGE, TEST_KEY, writeTree } from "../../tests/harness.js";
import { intersectRoots } from "../effective-roots.js";
import { createFileorg } from "../fileorg.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The engines composed as the server composes them (`createFileorg`), over the harness's database. */
async function engines() {
  const base = await createHarness({ start: false });
  const db = drizzle(base.db.$client); // a second handle over the same client, typed as the engines take it
  const { fileorg, preferences, review } = createFileorg({
    db,
    allowedRoots: [base.dir],
    journalKey: TEST_KEY,
  });
  await fileorg.start();
  h = {
    ...base,
    engine: fileorg,
    async close() {
      await fileorg.stop();
      await base.close();
    },
  };
  return { h, preferences, review };
}

const pdf = (tag: string) => Buffer.concat([PDF_1PAGE, Buffer.from(`% ${tag}\n`)]);
const nameOf = (path: string) => path.split("/").at(-1);

describe("rules at analyze (engine)", () => {
  it("gives an inbox batch its watch source's pack and the saved rules, in that order, the saved rule winning", async () => {
    const { h, preferences, review } = await engines();
    const inbox = join(h.dir, "inbox");
    writeTree(inbox, { "invoice-1.pdf": pdf("1"), "invoice-2.pdf": pdf("2"), "photo.txt": "t" });
    const source = await preferences.save("watch-sources", {
      name: "Bills",
      path: inbox,
      enabled: true,
      strategy_pack_id: "receipts",
    });
    // The pack retargets invoices; a saved rule (run after the pack's) sends invoice-2 elsewhere.
    const saved = await preferences.save("review-rules", {
      name: "Second invoice apart",
      priority: 1,
      conditions: { all: [{ field: "name_glob", glob: "invoice-2*" }] },
      actions: [{ type: "set_target", template: "apart/{name}{ext}" }],
    });
    const files = ["invoice-1.pdf", "invoice-2.pdf", "photo.txt"].map((n) => {
      const path = join(inbox, n);
      const st = statSync(path);
      return { path, size: st.size, mtime: st.mtimeMs };
    });
    const job = await review.analyzeInboxFiles(source, files);
    expect((await h.engine.waitForJob(job.job_id)).status).toBe("succeeded");
    const rows = (await h.engine.listRows(job.job_id)).items;
    const first = rows.find((r) => nameOf(r.source_path) === "invoice-1.pdf");
    expect(first?.target_path).toMatch(/\/inbox\/receipts\/\d{4}\/\d{2}\/invoice-1\.pdf$/);
    expect(first?.applied_rules).toEqual([
      expect.objectContaining({
        rule_id: "pack_receipts_named",
        source: "strategy_pack",
        pack_id: "receipts",
      }),
    ]);
    const second = rows.find((r) => nameOf(r.source_path) === "invoice-2.pdf");
    expect(second?.target_path).toBe(join(inbox, "apart", "invoice-2.pdf"));
    expect(second?.applied_rules.map((r) => [r.rule_id, r.source])).toEqual([
      ["pack_receipts_named", "strategy_pack"],
      [saved.id, "saved_rule"],
    ]);
    expect(second?.reason_codes).toEqual(expect.arrayContaining(["PACK_RULE", "SAVED_RULE"]));
  });

  it("files a category the pack does not sort into as other, and leaves disabled saved rules alone", async () => {
    const { h, preferences } = await engines();
    await preferences.saveRuntime({ active_strategy_pack: "photos-by-date" });
    await preferences.save("review-rules", {
      name: "Disabled",
      enabled: false,
      conditions: { all: [{ field: "extension", in: [".pdf"] }] },
      actions: [{ type: "skip" }],
    });
    const src = join(h.dir, "src");
    writeTree(src, { "paper.pdf": pdf("p") });
    const job = await h.engine.analyze({ source_dir: src, output_dir: join(h.dir, "out") }, { actor: "t" });
    await h.engine.waitForJob(job.job_id);
    const [row] = (await h.engine.listRows(job.job_id)).items;
    expect(row).toMatchObject({ category: "other", action: "move", applied_rules: [] });
    expect(row?.reason_codes).toContain("PACK_CATEGORY");
    // The photos pack's template: {category}/{yyyy}/{mm}/{dd}/{name}{ext}.
    expect(row?.target_path).toBe(join(h.dir, "out", "other", "2023", "05", "06", "paper.pdf"));
  });

  it("refuses an inbox batch larger than max_files_per_job before reading any file", async () => {
    const { h, preferences, review } = await engines();
    await preferences.saveRuntime({ limits: { max_files_per_job: 1 } });
    const inbox = join(h.dir, "inbox");
    writeTree(inbox, { "a.txt": "a", "b.txt": "b" });
    const source = await preferences.save("watch-sources", { name: "In", path: inbox, enabled: true });
    const job = await review.analyzeInboxFiles(source, [
      { path: join(inbox, "a.txt"), size: 1, mtime: 0 },
      { path: join(inbox, "b.txt"), size: 1, mtime: 0 },
    ]);
    const done = await h.engine.waitForJob(job.job_id);
    expect(done.status).toBe("failed");
    expect(done.error).toMatchObject({
      code: "JOB_LIMIT_EXCEEDED",
      details: { limit: "max_files_per_job", value: 1, actual: 2 },
    });
  });

  it("leaves no rows of an analyze stopped by max_files_per_job after a batch was already stored", async () => {
    const { h, preferences } = await engines();
    await preferences.saveRuntime({ limits: { max_files_per_job: 5050 } });
    const src = join(h.dir, "many");
    writeTree(
      src,
      Object.fromEntries(Array.from({ length: 5100 }, (_, i) => [`d${i % 10}/f${i}.txt`, `${i}`])),
    );
    const job = await h.engine.analyze({ source_dir: src }, { actor: "t" });
    const done = await h.engine.waitForJob(job.job_id, 120_000);
    expect(done.error).toMatchObject({ code: "JOB_LIMIT_EXCEEDED", details: { actual: 5051 } });
    const [count] = await h.db
      .select({ n: sql<number>`count(*)` })
      .from(rows)
      .where(eq(rows.jobId, job.job_id));
    expect(count?.n).toBe(0);
  }, 180_000);

  it("applies no rules at all without review wired in (the core engine alone)", async () => {
    h = await createHarness();
    const src = join(h.dir, "src");
    writeTree(src, { "movie.part": "x" });
    const job = await h.engine.analyze({ source_dir: src }, { actor: "t" });
    await h.engine.waitForJob(job.job_id);
    const [row] = (await h.engine.listRows(job.job_id)).items;
    expect(row).toMatchObject({ action: "move", applied_rules: [] });
  });
});

describe("limits and roots (pure)", () => {
  it("reads only positive integer limits and names the first one broken", () => {
    expect(limitsOf({ limits: { max_files_per_job: 5, max_total_bytes: -1, max_file_bytes: "x" } })).toEqual({
      max_files_per_job: 5,
      max_total_bytes: undefined,
      max_file_bytes: undefined,
    });
    expect(limitsOf({})).toEqual({});
    const limits = { max_files_per_job: 5, max_total_bytes: 100 };
    expect(brokenJobLimit(limits, 5, 100)).toBeUndefined();
    expect(brokenJobLimit(limits, 6, 1000)).toEqual({ limit: "max_files_per_job", value: 5, actual: 6 });
    expect(brokenJobLimit(limits, 2, 101)).toEqual({ limit: "max_total_bytes", value: 100, actual: 101 });
  });

  it("narrows roots to the deeper of each overlapping pair and never widens them", () => {
    expect(intersectRoots(["/home/me", "/tmp"], [])).toEqual(["/home/me", "/tmp"]);
    expect(intersectRoots(["/home/me", "/tmp"], ["/home/me/Downloads"])).toEqual(["/home/me/Downloads"]);
    expect(intersectRoots(["/home/me/Downloads"], ["/home"])).toEqual(["/home/me/Downloads"]);
    expect(intersectRoots(["/home/me"], ["/usr", "/home/me2"])).toEqual([]);
  });
});
