import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, snapshotTree, TEST_KEY, writeTree } from "../../tests/harness.js";
import { createFileorg } from "../fileorg.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const LOCAL = { actor: "local" };

const RULES = `# yaml-language-server: $schema=../schema/rules.schema.json
version: 1
rules:
  - name: Scans are documents
    filters:
      name: "scan-*.dat"
    actions:
      category: documents
      target: "scans/{name}{ext}"
  - name: Keep the notes
    filters: { extension: txt, name: "notes*" }
    actions: { skip: true }
  - name: Copies stay where they are
    filters: { duplicate: copy }
    actions: { skip: true }
  - name: Approve conflicts too
    filters: { bucket: conflict }
    actions: { approve: true }
  - name: Approve the rest that needs review
    filters: { bucket: needs_review, unit: false }
    exclude: { name: "scan-*" }
    actions: { approve: true }
`;

/** The engines composed as the server composes them, and an analyzed messy folder. */
async function analyzed() {
  const base = await createHarness({ start: false });
  const db = drizzle(base.db.$client);
  const { fileorg, review } = createFileorg({ db, allowedRoots: [base.dir], journalKey: TEST_KEY });
  await fileorg.start();
  h = {
    ...base,
    engine: fileorg,
    async close() {
      await fileorg.stop();
      await base.close();
    },
  };
  const src = join(base.dir, "mess");
  writeTree(src, {
    "scan-001.dat": "scan one",
    "scan-002.dat": "scan two",
    "notes.txt": "hello",
    "todo.md": "# todo\n",
    "mystery.bin": "???",
    "copy/readme.txt": "same text",
    "readme.txt": "same text",
  });
  const job = await fileorg.analyze({ source_dir: src, output_dir: join(base.dir, "out") }, LOCAL);
  expect((await fileorg.waitForJob(job.job_id)).status).toBe("succeeded");
  const rulesPath = join(base.dir, "rules.yaml");
  writeFileSync(rulesPath, RULES);
  return { fileorg, review, src, jobId: job.job_id, rules: readFileSync(rulesPath, "utf8") };
}

describe("a rules file over a job's manifest", () => {
  it("simulates per rule without writing, then runs through the rule engine's one revision; nothing moves", async () => {
    const { fileorg, review, src, jobId, rules } = await analyzed();
    const before = (await fileorg.listRows(jobId, { limit: 100 })).items;
    const revision = (await fileorg.viewManifest(jobId)).revision;
    const files = snapshotTree(src);

    const sim = await review.simulateRulesFile(jobId, rules);
    expect(sim.applied).toBe(false);
    expect(sim.revision).toBe(revision);
    const counts = Object.fromEntries(sim.rules.map((r) => [r.name, [r.matched, r.changed]]));
    expect(counts["Scans are documents"]).toEqual([2, 2]);
    expect(counts["Keep the notes"]).toEqual([1, 1]);
    expect(sim.rules[0]?.examples[0]?.changes.category).toEqual({ from: "other", to: "documents" });
    expect((await fileorg.listRows(jobId, { limit: 100 })).items).toEqual(before);

    const run = await review.runRulesFile(jobId, rules, LOCAL);
    expect(run.applied).toBe(true);
    expect(run.revision).toBe(revision + 1);
    expect(run.rules.map((r) => [r.name, r.matched, r.changed])).toEqual(
      sim.rules.map((r) => [r.name, r.matched, r.changed]),
    );
    const after = new Map(
      (await fileorg.listRows(jobId, { limit: 100 })).items.map((r) => [
        r.source_path.slice(src.length + 1),
        r,
      ]),
    );
    expect(after.get("scan-001.dat")?.category).toBe("documents");
    expect(after.get("scan-001.dat")?.target_path).toBe(join(h?.dir ?? "", "out", "scans", "scan-001.dat"));
    expect(after.get("notes.txt")?.action).toBe("skip");
    expect(after.get("mystery.bin")?.review_bucket).toBe("auto_safe");
    // The duplicate group's original (the name without a copy marker, then the shortest path) moves, its copy stays.
    expect(after.get("copy/readme.txt")?.action).toBe("skip");
    expect(after.get("readme.txt")?.action).toBe("move");
    // Skipping the copy closes the group's conflict, so the original is safe again — but not approved: a rule
    // approves only rows that need review, and it was in conflict when the rules ran.
    expect(after.get("readme.txt")?.review_bucket).toBe("auto_safe");
    expect(after.get("readme.txt")?.reason_codes).not.toContain("APPROVED");
    expect(after.get("mystery.bin")?.reason_codes).toContain("APPROVED");
    // Rules change the plan only.
    expect(snapshotTree(src)).toEqual(files);
  });

  it("refuses a bad file with every issue and changes nothing", async () => {
    const { fileorg, review, jobId, rules } = await analyzed();
    const revision = (await fileorg.viewManifest(jobId)).revision;
    const bad = rules.replace('target: "scans/{name}{ext}"', 'target: "scans/{nope}"');
    await expect(review.runRulesFile(jobId, bad, LOCAL)).rejects.toMatchObject({
      code: "RULES_FILE_INVALID",
      details: {
        issues: [expect.objectContaining({ rule: "Scans are documents", field: "actions.target", line: 9 })],
      },
    });
    const unknown = rules.replace("category: documents", "category: scans");
    // Refused before planning: a simulation never shows a category the plan could not take.
    await expect(review.simulateRulesFile(jobId, unknown)).rejects.toMatchObject({
      code: "CATEGORY_UNKNOWN",
    });
    await expect(review.runRulesFile(jobId, unknown, LOCAL)).rejects.toMatchObject({
      code: "CATEGORY_UNKNOWN",
    });
    expect((await fileorg.viewManifest(jobId)).revision).toBe(revision);
  });
});
