import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import type { AutomationCommand } from "../lanes/automation/commands.js";
import { parseCommandsFile } from "../lanes/automation/commands-file.js";
import { type AutomationEngine, createAutomationEngine } from "../lanes/automation/engine.js";
import { createProcessCommand } from "../lanes/automation/process-command.js";
import { automationTasks } from "../store/schema.js";
import { openTestEngine, TEST_SECRETS_KEY } from "./harness.js";

/*
 * The processes of a task, whatever they did to get away: a `setsid` child (a group and session of its
 * own), a daemon (setsid in a subshell that exits, so its parent is gone), and a child that dropped the
 * environment but stayed in the task's process group. A cancel ends them all; so does the recovery of a
 * task whose server died, before the task is failed or run again.
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `pid <n>` for the shell, a setsid child and a daemon; then waits. */
const TREE = [
  'echo "pid $$"; setsid sleep 300 & echo "pid $!"',
  "(setsid sh -c 'echo \"pid $$\"; exec sleep 300' &)",
  "wait",
].join("; ");

function shell(id: string, script: string): AutomationCommand {
  const [spec] = parseCommandsFile(
    JSON.stringify([{ command_id: id, title: id, argv: ["sh", "-c", script] }]),
    [],
  );
  if (spec === undefined) throw new Error("no spec");
  return createProcessCommand(spec, { env: process.env, killGraceMs: 300 });
}

function alive(pid: number): boolean {
  try {
    const state = /State:\s+(\w)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}

async function gone(pids: readonly number[], ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 30));
  }
  return false;
}

function reap(pids: readonly number[]): void {
  for (const pid of pids) if (alive(pid)) process.kill(pid, "SIGKILL");
}

async function printedPids(automation: AutomationEngine, taskId: string, count: number): Promise<number[]> {
  const end = Date.now() + 10_000;
  for (;;) {
    const task = await automation.getTask(taskId);
    const pids = task.output_tail.filter((l) => /^pid \d+$/.test(l)).map((l) => Number(l.slice(4)));
    if (pids.length >= count) return pids;
    if (Date.now() > end) throw new Error(`task ${taskId} printed ${JSON.stringify(task.output_tail)}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

async function open(commands: AutomationCommand[], leaseMs = 600_000) {
  const t = await openTestEngine();
  const automation = createAutomationEngine({
    db: t.db,
    secretsKey: TEST_SECRETS_KEY,
    commands,
    pollMs: 30,
    leaseMs,
    killGraceMs: 300,
  });
  cleanups.push(async () => {
    await automation.stop();
    await t.close();
  });
  return { t, automation };
}

/** The start time (/proc/<pid>/stat field 22) of a process. */
function startOf(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[19]);
}

/** A pid no process has any more. */
async function deadPid(): Promise<number> {
  const child = spawn("true");
  await once(child, "exit");
  return child.pid ?? 0;
}

/** Spawns a detached process tree as a crashed server would have left it for `taskId`. */
async function leftBehind(taskId: string): Promise<{ leader: ChildProcess; pids: number[] }> {
  const script = [
    TREE.replace("; wait", ""),
    // Drops the environment (no marker) and is orphaned: only the recorded group finds it.
    "(env -i sh -c 'echo \"pid $$\"; exec sleep 300' &)",
    "wait",
  ].join("; ");
  const leader = spawn("sh", ["-c", script], {
    detached: true,
    env: { PATH: process.env.PATH ?? "", VETTED_TASK_ID: taskId },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  leader.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  const end = Date.now() + 10_000;
  while ((out.match(/^pid \d+$/gm) ?? []).length < 4) {
    if (Date.now() > end) throw new Error(`the tree printed ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const pids = (out.match(/^pid \d+$/gm) ?? []).map((l) => Number(l.slice(4)));
  cleanups.push(() => reap(pids));
  return { leader, pids };
}

describe("the processes of an automation task", () => {
  it("ends a setsid child and a daemon of a cancelled task, not only its process group", async () => {
    const { automation } = await open([shell("tree", TREE)]);
    await automation.start();
    const task = await automation.runCommand({ command_id: "tree" });
    const pids = await printedPids(automation, task.task_id, 3);
    cleanups.push(() => reap(pids));
    expect(pids.every(alive)).toBe(true);
    await automation.cancelTask(task.task_id);
    expect(await gone(pids)).toBe(true);
    expect(await automation.getTask(task.task_id)).toMatchObject({ status: "cancelled" });
  });

  it("ends what a dead server's task left running before failing it, without waiting for the lease", async () => {
    const { t, automation } = await open([shell("tree", TREE)]);
    const task = await automation.runCommand({ command_id: "tree" });
    const { leader, pids } = await leftBehind(task.task_id);
    const owner = { host: hostname(), boot: readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() };
    await t.db.update(automationTasks).set({
      status: "running",
      attempt: 1,
      owner: "worker_dead",
      ownerProcess: { ...owner, pid: await deadPid(), start: 1 },
      leaseUntil: Date.now() + 600_000,
      process: { pgid: leader.pid ?? 0, start: startOf(leader.pid ?? 0) },
    });
    expect(pids.every(alive)).toBe(true);
    expect(await automation.recoverInterrupted()).toBe(1);
    expect(pids.filter(alive)).toEqual([]);
    const failed = await automation.getTask(task.task_id);
    expect(failed).toMatchObject({ status: "failed", reason: "INTERRUPTED" });
    expect(failed.output_tail).toContain("ended 4 process(es) the task left running");
  });

  it("leaves alone a process group whose leader's pid now names another process", async () => {
    const { t, automation } = await open([shell("tree", TREE)]);
    await automation.runCommand({ command_id: "tree" });
    const stranger = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    const pid = stranger.pid ?? 0;
    cleanups.push(() => reap([pid]));
    await t.db.update(automationTasks).set({
      status: "running",
      attempt: 1,
      owner: "worker_dead",
      leaseUntil: Date.now() - 1000,
      process: { pgid: pid, start: startOf(pid) - 1 },
    });
    expect(await automation.recoverInterrupted()).toBe(1);
    expect(alive(pid)).toBe(true);
  });
});
