import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  canMoveTask,
  decideAfterAttempt,
  interpolateArgv,
  retryDelayMs,
  TASK_STATUSES,
  TASK_TRANSITIONS,
} from "../domain/automation.js";
import type { AutomationCommand } from "../lanes/automation/commands.js";
import { parseCommandsFile } from "../lanes/automation/commands-file.js";
import { type AutomationEngine, createAutomationEngine } from "../lanes/automation/engine.js";
import { createProcessCommand } from "../lanes/automation/process-command.js";
import { automationTasks } from "../store/schema.js";
import { openTestEngine, TEST_SECRETS_KEY } from "./harness.js";

type Opened = Awaited<ReturnType<typeof openTestEngine>>;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function shell(id: string, script: string, extra: Record<string, unknown> = {}): AutomationCommand {
  const [spec] = parseCommandsFile(
    JSON.stringify([{ command_id: id, title: id, argv: ["sh", "-c", script], ...extra }]),
    [],
  );
  if (spec === undefined) throw new Error("no spec");
  return createProcessCommand(spec, { env: process.env, killGraceMs: 500 });
}

async function open(
  commands: AutomationCommand[],
  extra: Partial<Parameters<typeof createAutomationEngine>[0]> = {},
) {
  const t: Opened = await openTestEngine();
  const automation = createAutomationEngine({
    db: t.db,
    secretsKey: TEST_SECRETS_KEY,
    commands,
    pollMs: 30,
    leaseMs: 3000,
    retryBaseMs: 50,
    ...extra,
  });
  await automation.start();
  cleanups.push(async () => {
    await automation.stop();
    await t.close();
  });
  return { t, automation };
}

async function until(
  automation: AutomationEngine,
  taskId: string,
  done: (s: string) => boolean,
  ms = 20_000,
) {
  const end = Date.now() + ms;
  for (;;) {
    const task = await automation.getTask(taskId);
    if (done(task.status)) return task;
    if (Date.now() > end) throw new Error(`task ${taskId} stayed ${task.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

describe("the task state machine", () => {
  it("lets nothing out of a terminal status and retries only from running", () => {
    for (const s of TASK_STATUSES)
      for (const to of TASK_STATUSES)
        expect(canMoveTask(s, to)).toBe((TASK_TRANSITIONS[s] as readonly string[]).includes(to));
    expect(canMoveTask("success", "queued")).toBe(false);
    expect(canMoveTask("running", "queued")).toBe(true);
  });

  it("doubles the backoff per attempt with jitter between half and all of it", () => {
    expect(retryDelayMs(1, 1000, 60_000, 0)).toBe(500);
    expect(retryDelayMs(3, 1000, 60_000, 1)).toBe(4000);
    expect(retryDelayMs(20, 1000, 60_000, 0.5)).toBe(45_000);
    expect(
      decideAfterAttempt({
        ok: false,
        cancelled: false,
        attempt: 2,
        maxAttempts: 2,
        baseMs: 1,
        maxMs: 1,
        random: 0,
      }),
    ).toEqual({ to: "failed" });
  });

  it("keeps each argv element one argument whatever the param holds", () => {
    expect(interpolateArgv(["echo", "a-${params.x}"], { x: "1; rm -rf /" })).toEqual({
      ok: true,
      argv: ["echo", "a-1; rm -rf /"],
    });
    expect(interpolateArgv(["echo", "${params.y}"], {})).toEqual({ ok: false, missing: ["y"] });
  });
});

describe("the README's task state diagram", () => {
  it("draws exactly the transitions of the table", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const block =
      /```mermaid\nstateDiagram-v2\n([\s\S]*?)```/.exec(
        readme.slice(readme.indexOf("## Automation command lane")),
      )?.[1] ?? "";
    const edges = [...block.matchAll(/^\s*(\w+) --> (\w+)/gm)].map((m) => `${m[1]}->${m[2]}`).sort();
    const table = TASK_STATUSES.flatMap((from) =>
      TASK_TRANSITIONS[from].map((to) => `${from}->${to}`),
    ).sort();
    expect(edges).toEqual(table);
  });
});

describe("the automation engine", () => {
  it("runs a command to success with its output tail, secrets redacted", async () => {
    const cmd = shell("hello", 'echo "hello ${0}"; echo "token=$1"', {
      argv: ["sh", "-c", 'echo "hello $0"; echo "token=$1"', "${params.who}", "${params.token}"],
      params_schema: {
        type: "object",
        properties: { who: { type: "string" }, token: { type: "string", writeOnly: true } },
        required: ["who"],
      },
    });
    const { automation } = await open([cmd]);
    const task = await automation.runCommand({
      command_id: "hello",
      params: { who: "world", token: "s3cr3t-value" },
    });
    const done = await until(automation, task.task_id, (s) => s === "success");
    expect(done.output_tail).toContain("hello world");
    expect(done.output_tail).toContain("token=[redacted]");
    expect(JSON.stringify(await automation.listOutput(task.task_id, 0))).not.toContain("s3cr3t");
  });

  it("answers the same task for the same Idempotency-Key and refuses it for another body", async () => {
    const { automation } = await open([shell("ok", "true")]);
    const a = await automation.runCommand({ command_id: "ok" }, { idempotencyKey: "k1" });
    const b = await automation.runCommand({ command_id: "ok" }, { idempotencyKey: "k1" });
    expect(b.task_id).toBe(a.task_id);
    await expect(
      automation.runCommand({ command_id: "ok", params: { x: 1 } }, { idempotencyKey: "k1" }),
    ).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
  });

  it("retries a failing command with backoff and fails after max attempts", async () => {
    const { automation } = await open([shell("flaky", "echo try; exit 3", { retries: 2 })]);
    const task = await automation.runCommand({ command_id: "flaky" });
    const done = await until(automation, task.task_id, (s) => s === "failed");
    expect(done).toMatchObject({ attempt: 3, max_attempts: 3, exit_code: 3, reason: "EXIT_NONZERO" });
    expect(done.output_tail.filter((l) => l.includes("retrying in"))).toHaveLength(2);
  });

  it("fails a running task INTERRUPTED once its process's lease ran out, re-queues an idempotent one", async () => {
    const { t, automation } = await open([
      shell("plain", "true"),
      shell("again", "echo again", { idempotent: true }),
    ]);
    await automation.stop();
    const past = Date.now() - 1000;
    const a = await automation.runCommand({ command_id: "plain" });
    const b = await automation.runCommand({ command_id: "again" });
    await t.db
      .update(automationTasks)
      .set({ status: "running", owner: "worker_dead", leaseUntil: past, attempt: 1 });
    const second = createAutomationEngine({
      db: t.db,
      secretsKey: TEST_SECRETS_KEY,
      commands: [shell("plain", "true"), shell("again", "echo again", { idempotent: true })],
      pollMs: 30,
    });
    await second.start();
    cleanups.push(() => second.stop());
    expect(await second.getTask(a.task_id)).toMatchObject({ status: "failed", reason: "INTERRUPTED" });
    expect((await until(second, b.task_id, (s) => s === "success")).output_tail).toContain("again");
  });

  it("leaves alone a running task whose process still holds its lease", async () => {
    const commands = [shell("sleepy", "sleep 30")];
    const { t, automation } = await open(commands, { leaseMs: 20_000 });
    const task = await automation.runCommand({ command_id: "sleepy" });
    await until(automation, task.task_id, (s) => s === "running");
    const other = createAutomationEngine({ db: t.db, secretsKey: TEST_SECRETS_KEY, commands, pollMs: 30 });
    expect(await other.recoverInterrupted()).toBe(0);
    expect(await automation.getTask(task.task_id)).toMatchObject({ status: "running" });
    await automation.cancelTask(task.task_id);
  });

  it("runs onTransition in each status change's transaction", async () => {
    const seen: string[] = [];
    const { automation } = await open([shell("ok", "true")], {
      onTransition: async (tx, change) => {
        await tx.select().from(automationTasks).limit(1);
        seen.push(`${change.from}->${change.task.status}`);
      },
    });
    const task = await automation.runCommand({ command_id: "ok" });
    await until(automation, task.task_id, (s) => s === "success");
    expect(seen).toEqual(["queued->running", "running->success"]);
    expect(await automation.taskCounts()).toMatchObject({ success: 1, queued: 0, running: 0 });
  });
});
