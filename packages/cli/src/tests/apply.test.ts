import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "@vetted/fileorg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanJson } from "../plan.js";
import {
  createSandbox,
  hashTree,
  type Run,
  runVetted,
  type Sandbox,
  VETTED,
  writeMessyTree,
} from "./harness.js";
import { KEY, openTerminal } from "./pty.js";

/**
 * Runs `vetted args…` with stdin a pipe that stays open (as in `… | vetted apply` or a CI step): a prompt
 * would wait on it forever. Killed after `timeoutMs`, which the test then reports.
 */
function runWithOpenStdin(args: readonly string[], env: Record<string, string>, timeoutMs: number) {
  const [node, ...rest] = VETTED;
  const child = spawn(node, [...rest, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<Run & { timedOut: boolean }>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, stdout, stderr, timedOut: signal === "SIGKILL" });
    });
  });
}

describe("vetted apply asks before leaving files unreviewed or in conflict", () => {
  let box: Sandbox;
  let mess: string;
  let out: string;
  let plan: PlanJson;

  beforeAll(async () => {
    box = createSandbox();
    mess = join(box.root, "mess");
    out = join(box.root, "sorted");
    mkdirSync(mess);
    writeMessyTree(mess);
    const organized = await runVetted(["organize", mess, "--out", out, "--json"], box.env);
    expect(organized.code).toBe(0);
    plan = JSON.parse(organized.stdout) as PlanJson;
  });
  afterAll(() => box.cleanup());

  it("without a terminal and without --yes refuses at once (exit 1, CONFIRMATION_REQUIRED naming --yes), moving nothing", async () => {
    const before = hashTree(mess);
    const run = await runWithOpenStdin(["apply", plan.job_id], box.env, 30_000);
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^vetted: CONFIRMATION_REQUIRED: Move 4 files\? 3 unreviewed and 2 in an open conflict stay where they are — .*pass --yes/m,
    );
    expect(hashTree(mess)).toEqual(before);
  });

  it("on a terminal asks first, naming the counts; the default answer (no) moves nothing", async () => {
    const before = hashTree(mess);
    const term = openTerminal([...VETTED, "apply", plan.job_id], box.env, box.root);
    await term.expect(/Move 4 files\? 3 unreviewed and 2 in an open conflict stay where they are/, 60_000);
    term.send(KEY.enter);
    expect(await term.exited).toBe(1);
    expect(term.output()).toContain("Nothing was moved.");
    expect(hashTree(mess)).toEqual(before);
  });

  it("predicts with --dry-run without asking: what would move, what stays by bucket and why", async () => {
    const run = await runVetted(["apply", plan.job_id, "--dry-run"], box.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("would move 4 files, 0 would fail. Nothing was touched.");
    expect(run.stdout).toContain(
      "Left where they are: 3 unreviewed (needs_review nobody approved or edited), 2 in an open conflict.",
    );
    expect(run.stdout).toContain("  needs_review: 0 move; stay: 3 unreviewed");
  });

  it("with --yes applies the reviewed rows only, and says what stayed", async () => {
    const run = await runVetted(["apply", plan.job_id, "--yes"], box.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Applied job_\S+: moved 4 files/);
    expect(run.stdout).toContain("Left where they are: 3 unreviewed");
    for (const row of plan.rows) {
      const moved = row.review_bucket === "auto_safe" && row.action === "move";
      expect(existsSync(row.source_path)).toBe(!moved);
    }
  });

  it("moves an unreviewed row only when named with --rows, and says it was unreviewed", async () => {
    const scan = plan.rows.find((r) => r.review_bucket === "needs_review");
    if (scan === undefined) throw new Error("no needs_review row");
    const run = await runVetted(["apply", plan.job_id, "--rows", scan.row_id, "--yes", "--json"], box.env);
    expect(run.code).toBe(0);
    const job = JSON.parse(run.stdout) as Job;
    expect(job.result).toMatchObject({ moved: 1, included_unreviewed: 1 });
    expect(existsSync(scan.target_path)).toBe(true);
  });
});
