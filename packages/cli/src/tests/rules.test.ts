import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pdfWithText } from "@vetted/fileorg/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanJson } from "../plan.js";
import { createSandbox, hashTree, runVetted, type Sandbox, writeMessyTree } from "./harness.js";

const RULES = `# yaml-language-server: $schema=https://unpkg.com/@vetted/fileorg/schema/rules.schema.json
version: 1
rules:
  - name: Scans are documents
    filters:
      name: "scan-*.dat"
    actions:
      category: documents
      target: "scans/{name}{ext}"
  - name: Keep notes where they are
    filters:
      extension: txt
      name: "notes*"
    actions:
      skip: true
  - name: Approve unknown files
    filters:
      bucket: needs_review
    exclude:
      name: "scan-*"
    actions:
      approve: true
`;

const BAD = `version: 1
rules:
  - name: Scans are documents
    filters:
      name: "scan-*.dat"
      size: { min: 10, max: 5 }
    actions:
      category: documents
  - name: Move old
    filters:
      date: { from: last-week }
    actions:
      move: archive
`;

/** Two locations (relative to the analyzed folder) and a global rule, with their lines: 6, 11, 15. */
const LOCATED = `version: 1
locations:
  - path: pics
    rules:
      # the picture folder stays as it is
      - name: Pictures stay
        filters: { extension: png }
        actions: { skip: true }
  - path: copy
    rules:
      - name: Copy the copies
        filters: { extension: txt }
        actions: { copy: true, target: "copies/{name}{ext}" }
rules:
  - name: Text is documents
    filters: { extension: txt }
    actions: { category: documents }
`;

describe("vetted rules check | sim | run, on a rules file on disk", () => {
  let box: Sandbox;
  let mess: string;
  let plan: PlanJson;
  let rulesFile: string;

  beforeAll(async () => {
    box = createSandbox();
    mess = join(box.root, "mess");
    mkdirSync(mess);
    writeMessyTree(mess);
    rulesFile = join(box.root, "rules.yaml");
    writeFileSync(rulesFile, RULES);
    const run = await runVetted(["organize", mess, "--out", join(box.root, "out"), "--json"], box.env);
    expect(run.code, run.stderr).toBe(0);
    plan = JSON.parse(run.stdout) as PlanJson;
  });
  afterAll(() => box.cleanup());

  it("checks a valid file (exit 0) and names the rule, field, line and column of each problem (exit 1)", async () => {
    const good = await runVetted(["rules", "check", rulesFile], box.env);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain("3 rules");
    writeFileSync(join(box.root, "bad.yaml"), BAD);
    const bad = await runVetted(["rules", "check", "bad.yaml"], box.env, undefined, box.root);
    expect(bad.code).toBe(1);
    expect(bad.stderr.split("\n")).toEqual([
      'bad.yaml:6:20: rule "Scans are documents" filters.size.min: min must not be greater than max',
      'bad.yaml:11:21: rule "Move old" filters.date.from: expected a date (2024-05-31) or a date-time with an offset (2024-05-31T09:00:00+02:00)',
      'bad.yaml:13:7: rule "Move old" actions.move: unknown action field "move"; use category, target, skip, trash, copy, approve',
      "vetted: RULES_FILE_INVALID: bad.yaml has 3 problems",
      "",
    ]);
  });

  it("simulates the file on the plan: per-rule counts and example rows, nothing changed", async () => {
    const text = await runVetted(["rules", "sim", rulesFile, "--job", plan.job_id], box.env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`Scans are documents (${rulesFile}:4): matches 3 rows, would change 3`);
    expect(text.stdout).toContain(`${join(mess, "scan-001.dat")}: category other → documents; target_path`);
    expect(text.stdout).toContain("Simulation: nothing was changed.");
    const sim = await runVetted(["rules", "sim", rulesFile, "--job", plan.job_id, "--json"], box.env);
    expect(sim.code, sim.stderr).toBe(0);
    const outcome = JSON.parse(sim.stdout) as {
      applied: boolean;
      revision: number;
      rules: Array<{
        name: string;
        matched: number;
        changed: number;
        examples: Array<{ source_path: string }>;
      }>;
    };
    expect(outcome.applied).toBe(false);
    expect(outcome.revision).toBe(plan.summary.revision);
    expect(outcome.rules.map((r) => [r.name, r.matched, r.changed])).toEqual([
      ["Scans are documents", 3, 3],
      ["Keep notes where they are", 1, 1],
      ["Approve unknown files", expect.any(Number), expect.any(Number)],
    ]);
    expect(outcome.rules[0]?.examples.map((e) => e.source_path).sort()).toEqual(
      ["scan-001.dat", "scan-002.dat", "scan-003.dat"].map((n) => join(mess, n)),
    );
  });

  it("refuses to run without a terminal and without --yes; with --yes changes the plan, and nothing moves", async () => {
    const before = hashTree(mess);
    const refused = await runVetted(["rules", "run", rulesFile, "--job", plan.job_id], box.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("CONFIRMATION_REQUIRED");
    const run = await runVetted(
      ["rules", "run", rulesFile, "--job", plan.job_id, "--yes", "--json"],
      box.env,
    );
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      applied: boolean;
      revision: number;
      rules: Array<{ name: string; changed: number }>;
    };
    expect(outcome.applied).toBe(true);
    expect(outcome.revision).toBe(plan.summary.revision + 1);
    expect(outcome.rules[0]).toMatchObject({ name: "Scans are documents", changed: 3 });
    expect(hashTree(mess)).toEqual(before);
  });

  it("organize --rules applies the file to the plan after analyzing and says what each rule changed; a bad file fails first", async () => {
    const bad = await runVetted(["organize", mess, "--rules", "bad.yaml"], box.env, undefined, box.root);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('bad.yaml:6:20: rule "Scans are documents" filters.size.min');
    expect(bad.stdout).toBe("");
    const run = await runVetted(
      ["organize", mess, "--out", join(box.root, "out"), "--rules", "rules.yaml"],
      box.env,
      undefined,
      box.root,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Rules from rules\.yaml changed \d+ rows \(plan revision \d+\):/);
    expect(run.stdout).toContain("  Scans are documents (rules.yaml:4): changed 3 rows (matched 3)");
    expect(run.stdout).toContain("  Keep notes where they are (rules.yaml:10): changed 1 row (matched 1)");
  });

  it("organize --rules with two locations: each location's rules act only inside it, before the global ones, and each rule's line is named", async () => {
    writeFileSync(join(box.root, "located.yaml"), LOCATED);
    const run = await runVetted(
      ["organize", mess, "--out", join(box.root, "out-located"), "--rules", "located.yaml", "--json"],
      box.env,
      undefined,
      box.root,
    );
    expect(run.code, run.stderr).toBe(0);
    const located = JSON.parse(run.stdout) as PlanJson;
    expect(located.rules?.rules.map((r) => [r.name, r.line, r.location, r.matched])).toEqual([
      ["Pictures stay", 6, "pics", 1],
      ["Copy the copies", 11, "copy", 1],
      ["Text is documents", 15, undefined, 2],
    ]);
    const byPath = new Map(located.rows.map((r) => [r.source_path.slice(mess.length + 1), r]));
    expect(byPath.get("pics/photo.png")?.action).toBe("skip");
    expect(byPath.get("copy/readme.txt")).toMatchObject({
      action: "copy",
      target_path: join(box.root, "out-located", "copies", "readme.txt"),
    });
    expect(byPath.get("readme.txt")?.action).toBe("move");
    expect(byPath.get("readme.txt")?.category).toBe("documents");
    const text = await runVetted(
      ["organize", mess, "--out", join(box.root, "out-located"), "--rules", "located.yaml"],
      box.env,
      undefined,
      box.root,
    );
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("  Copy the copies (located.yaml:11, in copy): changed 1 row (matched 1)");
    expect(text.stdout).toContain("  Pictures stay (located.yaml:6, in pics): changed 1 row (matched 1)");
  });

  it("organize --rules with a `text` filter has analyze read PDFs' text, so the filter finds a phrase inside a PDF", async () => {
    const papers = join(box.root, "papers");
    mkdirSync(papers);
    writeFileSync(join(papers, "contract.pdf"), pdfWithText(["Service agreement", "the golden needle"]));
    writeFileSync(join(papers, "other.pdf"), pdfWithText(["Nothing to see"]));
    writeFileSync(
      join(box.root, "text.yaml"),
      `version: 1
rules:
  - name: Needles
    filters: { text: { contains: golden needle } }
    actions: { target: "needles/{name}{ext}" }
`,
    );
    const run = await runVetted(
      ["organize", papers, "--out", join(box.root, "out-text"), "--rules", "text.yaml", "--json"],
      box.env,
      undefined,
      box.root,
    );
    expect(run.code, run.stderr).toBe(0);
    const planned = JSON.parse(run.stdout) as PlanJson;
    expect(planned.rules?.rules.map((r) => [r.name, r.matched])).toEqual([["Needles", 1]]);
    const contract = planned.rows.find((r) => r.source_path.endsWith("/contract.pdf"));
    expect(contract?.target_path).toBe(join(box.root, "out-text", "needles", "contract.pdf"));
  });
});
