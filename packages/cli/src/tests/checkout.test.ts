import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanJson } from "../plan.js";
import type { Run } from "./harness.js";

const REPO = fileURLToPath(new URL("../../../..", import.meta.url));

/** Runs `pnpm vetted args…` as a person would type it in `cwd` (a folder of the checkout). */
function pnpmVetted(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  onStdout?: (stdout: string, pid: number) => void,
): Promise<Run> {
  // A clean base env: no INIT_CWD inherited from the test runner, so the one pnpm sets is the one used.
  // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
  const child = spawn("pnpm", ["vetted", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    if (child.pid !== undefined) onStdout?.(stdout, child.pid);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON document in pnpm's output (pnpm prints its `> vetted@ vetted …` lines before it). */
function planIn(stdout: string): PlanJson {
  return JSON.parse(stdout.slice(stdout.indexOf("{"))) as PlanJson;
}

describe("pnpm vetted in a checkout", () => {
  // Inside the repository, so that pnpm finds the root script from the subfolder; `inbox` exists both at
  // the top and in the subfolder, with different files, so resolving against the wrong folder shows.
  let top: string;
  let sub: string;
  let env: Record<string, string>;

  beforeAll(() => {
    top = mkdtempSync(join(REPO, ".tmp-pnpm-vetted-"));
    sub = join(top, "sub");
    mkdirSync(join(top, "inbox"), { recursive: true });
    mkdirSync(join(sub, "inbox"), { recursive: true });
    writeFileSync(join(top, "inbox", "top.txt"), "top");
    writeFileSync(join(sub, "inbox", "sub.txt"), "sub");
    env = { VETTED_DATA_DIR: join(top, "data"), VETTED_ALLOWED_ROOTS: top };
  });
  afterAll(() => rmSync(top, { recursive: true, force: true }));

  it("from the repository root, resolves a relative folder against the root", async () => {
    const run = await pnpmVetted(["organize", `./${relative(REPO, top)}/inbox`, "--json"], REPO, env);
    expect(run.stderr).not.toContain("ERR_PNPM");
    expect(run.code).toBe(0);
    const plan = planIn(run.stdout);
    expect(plan.summary.source_dir).toBe(join(top, "inbox"));
    expect(plan.rows.map((r) => r.source_path)).toEqual([join(top, "inbox", "top.txt")]);
  });

  it("from a subfolder, resolves it against the subfolder and names `pnpm vetted` in its messages", async () => {
    const run = await pnpmVetted(["organize", "./inbox"], sub, env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`: ${join(sub, "inbox")} → `);
    expect(run.stdout).toMatch(/Next: pnpm vetted review job_\S+ · pnpm vetted apply job_/);
  });

  it("a refused confirmation ends with the CLI's own error line and exit code, no pnpm recursive-run noise", async () => {
    const run = await pnpmVetted(["organize", "./inbox", "--apply"], sub, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^vetted: CONFIRMATION_REQUIRED: Move the 1 auto_safe file now\?/m);
    expect(run.stderr).not.toContain("ERR_PNPM");
  });

  it("Ctrl-C during watch ends with the CLI's own message and exit code 0, nothing from pnpm after it", async () => {
    let sent = false;
    const run = await pnpmVetted(["watch", "./inbox", "--interval", "100"], sub, env, (stdout, pid) => {
      if (!sent && stdout.includes("Ctrl-C stops.")) {
        sent = true;
        process.kill(-pid, "SIGINT"); // what a terminal does on Ctrl-C: the foreground process group
      }
    });
    expect(sent).toBe(true);
    expect(run.stdout).toContain(`Watching ${join(sub, "inbox")}`);
    expect(run.stdout.trimEnd().endsWith("Stopped watching.")).toBe(true);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
  });
});
