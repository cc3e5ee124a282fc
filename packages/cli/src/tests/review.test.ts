import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { createPreferencesEngine } from "@vetted/fileorg";
import { drizzle } from "drizzle-orm/libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalBackend } from "../backend/local.js";
import { loadPlan, type PlanJson } from "../plan.js";
import { loadSettings } from "../settings.js";
import { createSandbox, runVetted, type Sandbox, VETTED, writeMessyTree } from "./harness.js";
import { KEY, openTerminal, type Terminal } from "./pty.js";

/** The options of the multiselect last shown, in order (their labels). */
function optionsShown(screen: string): string[] {
  const start = screen.lastIndexOf("Select rows");
  return screen
    .slice(start)
    .split("\n")
    .filter((line) => /[◻◼]/.test(line))
    .map((line) => line.replace(/^.*?[◻◼]\s*/, ""));
}

/** Moves the cursor over the options and toggles those whose label starts with one of `names`. */
async function selectRows(term: Terminal, screen: string, names: readonly string[]): Promise<void> {
  const options = optionsShown(screen);
  const wanted = names.map((name) => options.findIndex((label) => label.startsWith(`${name} →`)));
  expect(
    wanted.every((i) => i >= 0),
    `rows ${names.join(", ")} among ${options.join(" | ")}`,
  ).toBe(true);
  let at = 0;
  for (const index of wanted.sort((a, b) => a - b)) {
    term.send(KEY.down.repeat(index - at));
    term.send(KEY.space);
    at = index;
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  term.send(KEY.enter);
}

describe("vetted review, driven through a pseudo-terminal", () => {
  let box: Sandbox;
  let plan: PlanJson;

  beforeAll(async () => {
    box = createSandbox();
    const mess = join(box.root, "mess");
    mkdirSync(mess);
    writeMessyTree(mess);
    const run = await runVetted(["organize", mess, "--out", join(box.root, "out"), "--json"], box.env);
    expect(run.code).toBe(0);
    plan = JSON.parse(run.stdout) as PlanJson;
  });
  afterAll(() => box.cleanup());

  it("resolves a conflict, recategorizes and approves rows, then drafts, previews and saves a rule", async () => {
    const term = openTerminal([...VETTED, "review", plan.job_id], box.env, box.root);
    try {
      // The conflict bucket: resolve the duplicate readme (rename the later one, keep both copies' content).
      await term.expect(/conflict: 2 rows[\s\S]*Enter: confirm/, 60_000);
      term.send(KEY.space);
      term.send(KEY.enter);
      await term.expect(/What to do with 1 row\(s\)\?[\s\S]*Enter: confirm/);
      term.send(KEY.down.repeat(4));
      term.send(KEY.enter);
      const asked: string[] = [];
      for (let i = 0; i < 2; i++) {
        const prompt = await term.expect(
          /(duplicate_target|duplicate_content) on .*\(2 rows\)[\s\S]*Enter: confirm/,
        );
        const active = [...prompt.matchAll(/◆\s+(duplicate_\w+ on .*) \(2 rows\)/g)].at(-1);
        asked.push(active?.[1] ?? "");
        term.send(KEY.enter);
      }
      expect(asked.sort()).toEqual([
        expect.stringMatching(/^duplicate_content on content [0-9a-f]{12}…$/),
        "duplicate_target on documents/2024/readme.txt",
      ]);
      await term.expect(/Resolved 2 conflicts/);

      // Whatever is left in conflict: move on. Then needs_review: recategorize two scans.
      let screen = await term.expect(/(conflict|needs_review): \d+ rows?[\s\S]*Enter: confirm/);
      if (/conflict: \d+ rows?/.test(screen)) {
        term.send(KEY.enter);
        screen = await term.expect(/needs_review: \d+ rows?[\s\S]*Enter: confirm/);
      }
      await selectRows(term, screen, ["scan-001.dat", "scan-002.dat"]);
      await term.expect(/What to do with 2 row\(s\)\?[\s\S]*Enter: confirm/);
      term.send(KEY.down.repeat(2));
      term.send(KEY.enter);
      await term.expect(/Category[\s\S]*documents[\s\S]*Enter: confirm/);
      term.send(KEY.enter);
      await term.expect(/Category documents set on 2 rows/);

      // Approve the two rows just corrected.
      screen = await term.expect(/needs_review: \d+ rows?[\s\S]*Enter: confirm/);
      await selectRows(term, screen, ["scan-001.dat", "scan-002.dat"]);
      await term.expect(/What to do with 2 row\(s\)\?[\s\S]*Enter: confirm/);
      term.send(KEY.enter);
      await term.expect(/Approved 2 rows/);
      await term.expect(/needs_review: \d+ rows?[\s\S]*Enter: confirm/);
      term.send(KEY.enter);

      // A rule from the corrected rows: draft, preview, save.
      await term.expect(/Draft a rule from the 2 rows you corrected\?/);
      term.send("y");
      const preview = await term.expect(
        /Preview: the rule matches \d+ rows[\s\S]*Save this rule for the next plans\?/,
      );
      expect(preview).toMatch(/set_category/);
      term.send("y");
      await term.expect(/Rule name/);
      term.send("Scans are documents");
      term.send(KEY.enter);
      await term.expect(/Saved rule \S+ \(Scans are documents\)/);
      await term.expect(/auto_safe, \d+ needs_review/);
      expect(await term.exited).toBe(0);
    } finally {
      term.child.kill();
    }

    // What the review did is in the manifest and the preferences.
    const backend = await createLocalBackend(loadSettings(box.env, {}, box.root));
    try {
      const after = await loadPlan(backend, plan.job_id);
      const scans = after.rows.filter((r) => /scan-00[12]\.dat$/.test(r.source_path));
      expect(scans.map((r) => [r.category, r.review_bucket])).toEqual([
        ["documents", "auto_safe"],
        ["documents", "auto_safe"],
      ]);
      expect(after.conflicts.filter((c) => c.status === "open")).toEqual([]);
    } finally {
      await backend.close();
    }
    const client = createClient({ url: `file:${join(box.dataDir, "vetted.db")}` });
    try {
      const rules = await createPreferencesEngine({ db: drizzle(client) }).list("review-rules");
      expect(rules.items.map((r) => r.name)).toEqual(["Scans are documents"]);
      expect(rules.items[0]?.actions).toContainEqual({ type: "set_category", category: "documents" });
    } finally {
      client.close();
    }
  });

  it("refuses to run without a terminal (exit 2)", async () => {
    const run = await runVetted(["review", plan.job_id], box.env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^vetted: NO_TERMINAL: vetted review is interactive and needs a terminal/);
  });
});
