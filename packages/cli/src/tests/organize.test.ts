import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanJson } from "../plan.js";
import { CLI_VERSION } from "../version.js";
import { createSandbox, hashTree, runVetted, type Sandbox, writeMessyTree } from "./harness.js";

describe("vetted organize, apply and undo, standalone", () => {
  let box: Sandbox;
  let mess: string;
  let out: string;
  let original: Record<string, string>;

  beforeAll(() => {
    box = createSandbox();
    mess = join(box.root, "mess");
    out = join(box.root, "sorted");
    mkdirSync(mess);
    writeMessyTree(mess);
    original = hashTree(mess);
  });
  afterAll(() => box.cleanup());

  it("prints the plan of a messy tree: the target tree, the rows needing review, conflicts and totals", async () => {
    const run = await runVetted(["organize", mess, "--out", out], box.env);
    expect(run.stderr).toContain("Analyzing:");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Plan job_\S+: .*mess → .*sorted$/m);
    expect(run.stdout).toMatch(/├── documents\/ 4\n│ {3}└── 2024\/ 4/);
    expect(run.stdout).toContain("Needs review (5)");
    expect(run.stdout).toMatch(/needs_review\s+│ The file type is unknown/);
    expect(run.stdout).toContain("scan-001.dat → other/2024/scan-001.dat");
    expect(run.stdout).toContain("Conflicts (2)");
    expect(run.stdout).toContain("duplicate_target documents/2024/readme.txt — 2 rows");
    expect(run.stdout).toContain(
      "Totals: 9 files (108 B): 4 auto_safe, 3 needs_review, 2 conflict, 0 blocked",
    );
    // Not a terminal: no colour, no progress bar.
    expect(run.stdout + run.stderr).not.toContain("\x1b[");
    // Nothing moved.
    expect(hashTree(mess)).toEqual(original);
  });

  it("with --apply --yes moves exactly the auto_safe rows, and undo puts every file back (hashes checked)", async () => {
    const run = await runVetted(["organize", mess, "--out", out, "--apply", "--yes", "--json"], box.env);
    expect(run.code).toBe(0);
    const plan = JSON.parse(run.stdout) as PlanJson;
    expect(plan.apply_job_id).toMatch(/^job_/);
    const safe = plan.rows.filter((r) => r.review_bucket === "auto_safe" && r.action === "move");
    const others = plan.rows.filter((r) => !safe.includes(r));
    expect(safe.length).toBe(4);
    expect(others.length).toBe(5);
    for (const row of safe) {
      expect(existsSync(row.target_path)).toBe(true);
      expect(existsSync(row.source_path)).toBe(false);
    }
    for (const row of others) expect(existsSync(row.source_path)).toBe(true);
    expect(Object.keys(hashTree(out)).sort()).toEqual(
      safe.map((r) => r.target_path.slice(out.length + 1)).sort(),
    );

    const undo = await runVetted(["undo", String(plan.apply_job_id)], box.env);
    expect(undo.stderr).toContain("Undoing:");
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain("4 files back where they were");
    expect(hashTree(mess)).toEqual(original);
    expect(existsSync(out) ? Object.keys(hashTree(out)) : []).toEqual([]);
  });

  it("refuses --apply without --yes when there is no terminal to confirm on (exit 1), naming the counts, moving nothing", async () => {
    const run = await runVetted(["organize", mess, "--out", out, "--apply"], box.env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^vetted: CONFIRMATION_REQUIRED: Move the 4 auto_safe files now\? 3 needing review and 2 open conflicts stay where they are — .*pass --yes/m,
    );
    expect(hashTree(mess)).toEqual(original);
  });

  it("lists the jobs and shows a job's report", async () => {
    const jobs = await runVetted(["jobs", "--json"], box.env);
    expect(jobs.code).toBe(0);
    const page = JSON.parse(jobs.stdout) as { items: Array<{ job_id: string; kind: string }> };
    expect(page.items.map((j) => j.kind)).toEqual(["analyze", "rollback", "apply", "analyze", "analyze"]);
    const analyze = page.items.find((j) => j.kind === "analyze");
    const show = await runVetted(["show", String(analyze?.job_id)], box.env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^analyze job job_\S+: succeeded/);
    expect(show.stdout).toContain("Target folders");
  });

  it("takes the naming template of a strategy pack (--pack) or a given one (--template)", async () => {
    const byPack = await runVetted(
      ["organize", mess, "--out", out, "--pack", "photos-by-date", "--json"],
      box.env,
    );
    expect(byPack.code).toBe(0);
    const photo = (JSON.parse(byPack.stdout) as PlanJson).rows.find((r) =>
      r.source_path.endsWith("photo.png"),
    );
    expect(photo?.target_path).toBe(join(out, "images", "2024", "05", "06", "photo.png"));
    const byTemplate = await runVetted(
      ["organize", mess, "--out", out, "--template", "{category}-{yyyy}/{name}{ext}", "--json"],
      box.env,
    );
    const notes = (JSON.parse(byTemplate.stdout) as PlanJson).rows.find((r) =>
      r.source_path.endsWith("notes.txt"),
    );
    expect(notes?.target_path).toBe(join(out, "documents-2024", "notes.txt"));
  });

  it("answers shell-friendly exit codes: 0 ok, 1 refused, 2 usage or environment", async () => {
    const version = await runVetted(["--version"], box.env);
    expect([version.code, version.stdout.trim()]).toEqual([0, CLI_VERSION]);
    const help = await runVetted(["organize", "--help"], box.env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: vetted organize [options] <dir>");
    const missing = await runVetted(["organize"], box.env);
    expect(missing.code).toBe(2);
    // Every error is one line `vetted: CODE: message`, commander's own usage errors included.
    expect(missing.stderr).toMatch(/^vetted: USAGE: missing required argument 'dir'$/m);
    const unknownOption = await runVetted(["jobs", "--frobnicate"], box.env);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toMatch(/^vetted: USAGE: unknown option '--frobnicate'$/m);
    const badLimit = await runVetted(["jobs", "--limit", "0"], box.env);
    expect([badLimit.code, badLimit.stderr]).toEqual([
      2,
      "vetted: USAGE: --limit must be a whole number from 1 to 500\n",
    ]);
    const unknownJob = await runVetted(["show", "job_nope"], box.env);
    expect([unknownJob.code, unknownJob.stderr]).toEqual([2, expect.stringContaining("JOB_NOT_FOUND")]);
    const outside = await runVetted(["organize", "/etc"], box.env);
    expect([outside.code, outside.stderr]).toEqual([1, expect.stringContaining("PATH_OUTSIDE_ROOT")]);
    const badPack = await runVetted(["organize", mess, "--pack", "nope"], box.env);
    expect([badPack.code, badPack.stderr]).toEqual([2, expect.stringContaining("downloads-cleanup")]);
    const badServer = await runVetted(["--server", "ftp://x", "jobs"], box.env);
    expect(badServer.code).toBe(2);
  });
});
