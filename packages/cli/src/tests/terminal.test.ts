import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverLaunch } from "../commands/serve.js";
import { createSandbox, runVetted, type Sandbox, VETTED, writeMessyTree } from "./harness.js";
import { openTerminal, plainText } from "./pty.js";

/** A colour (SGR) sequence such as `ESC[32m`. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is looked for
const COLOUR = /\x1b\[\d+(;\d+)*m/;

describe("vetted on a terminal", () => {
  let box: Sandbox;
  let mess: string;

  beforeAll(() => {
    box = createSandbox();
    mess = join(box.root, "mess");
    mkdirSync(mess);
    writeMessyTree(mess);
    for (let i = 0; i < 300; i++) writeFileSync(join(mess, `note-${i}.txt`), `note ${i}\n`.repeat(50));
  });
  afterAll(() => box.cleanup());

  it("draws a progress bar with files/s, bytes and ETA, and colours the plan", async () => {
    const term = openTerminal(
      [...VETTED, "organize", mess, "--out", join(box.root, "out")],
      box.env,
      box.root,
    );
    expect(await term.exited).toBe(0);
    const raw = term.output();
    expect(plainText(raw)).toMatch(
      /Analyzing \[[█░]+\] \d+% \| \d+ files \| \d+ files\/s \| [\d.]+ (B|KB|MB) \| ETA/,
    );
    expect(raw).toMatch(COLOUR);
    expect(plainText(raw)).toContain("Totals: 309 files");
  });

  it("never colours with NO_COLOR, even on a terminal", async () => {
    const term = openTerminal(
      [...VETTED, "organize", mess, "--out", join(box.root, "out")],
      { ...box.env, NO_COLOR: "1" },
      box.root,
    );
    expect(await term.exited).toBe(0);
    const raw = term.output();
    expect(plainText(raw)).toContain("Totals: 309 files");
    expect(raw).not.toMatch(COLOUR);
  });
});

describe("vetted doctor and serve", () => {
  let box: Sandbox;
  beforeAll(() => {
    box = createSandbox();
  });
  afterAll(() => box.cleanup());

  it("doctor reports every check and exits 0 when the environment is usable; Chromium absent is only a warning", async () => {
    const run = await runVetted(["doctor", "--json"], {
      ...box.env,
      VETTED_CHROMIUM_PATH: join(box.root, "no-chromium"),
    });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ["node", "ok"],
      ["data dir", "ok"],
      ["database", "ok"],
      ["allowed roots", "ok"],
      ["journal key", "ok"],
      ["chromium", "warn"],
    ]);
  });

  it("doctor exits 1 when a check fails (allowed roots that do not exist)", async () => {
    const run = await runVetted(["doctor"], { ...box.env, VETTED_ALLOWED_ROOTS: join(box.root, "gone") });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/FAIL allowed roots\s+missing: .*gone/);
  });

  it("doctor exits 2 on an environment error (a journal key too short)", async () => {
    const run = await runVetted(["doctor"], { ...box.env, VETTED_JOURNAL_KEY: "short" });
    expect([run.code, run.stderr]).toEqual([2, expect.stringContaining("VETTED_JOURNAL_KEY")]);
  });

  it("serve finds the server only inside the Vetted workspace", () => {
    expect(serverLaunch(box.root, true)).toBeUndefined();
    const launch = serverLaunch(join(import.meta.dirname, ".."), true);
    expect(launch?.args.at(-1)).toMatch(/apps\/server\/src\/main\.ts$/);
  });
});
