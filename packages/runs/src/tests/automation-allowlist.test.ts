import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type AutomationCommand,
  type AutomationEngine,
  CommandNotFoundError,
  createAutomationEngine,
  createProcessCommand,
  parseCommandsFile,
} from "../lanes/automation/index.js";
import { openTestEngine, TEST_SECRETS_KEY } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A commands-file command `touch <file>`: its file exists once it ran. */
function touching(id: string, file: string): AutomationCommand {
  const [spec] = parseCommandsFile(
    JSON.stringify([{ command_id: id, title: id, argv: ["touch", file] }]),
    [],
  );
  if (spec === undefined) throw new Error("no spec");
  return createProcessCommand(spec, { env: process.env, killGraceMs: 500 });
}

async function openOver(db: Awaited<ReturnType<typeof openTestEngine>>["db"], commands: AutomationCommand[]) {
  const automation = createAutomationEngine({
    db,
    secretsKey: TEST_SECRETS_KEY,
    commands,
    pollMs: 30,
    leaseMs: 3000,
    retryBaseMs: 50,
  });
  await automation.start();
  cleanups.push(() => automation.stop());
  return automation;
}

async function settled(automation: AutomationEngine, taskId: string) {
  const end = Date.now() + 10_000;
  for (;;) {
    const task = await automation.getTask(taskId);
    if (task.status !== "queued" && task.status !== "running") return task;
    if (Date.now() > end) throw new Error(`task ${taskId} stayed ${task.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), "vetted-allowlist-"));
  const t = await openTestEngine();
  cleanups.push(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { t, dir };
}

describe("the automation allowlist", () => {
  it("refuses a command that is not in the allowlist with COMMAND_NOT_FOUND, queueing nothing", async () => {
    const { t, dir } = await setup();
    const automation = await openOver(t.db, [touching("listed", join(dir, "listed"))]);
    const refused = automation.runCommand({ command_id: "rm" });
    await expect(refused).rejects.toBeInstanceOf(CommandNotFoundError);
    await expect(refused).rejects.toMatchObject({
      code: "COMMAND_NOT_FOUND",
      details: { known: ["listed"] },
    });
    expect((await automation.listTasks()).items).toEqual([]);
  });

  it("fails a queued task whose command left the allowlist with COMMAND_UNKNOWN, without running it", async () => {
    const { t, dir } = await setup();
    const marker = join(dir, "ran");
    const before = createAutomationEngine({
      db: t.db,
      secretsKey: TEST_SECRETS_KEY,
      commands: [touching("gone", marker)],
    });
    // Queued while `gone` was listed, never started (no worker): then the commands file drops it.
    const task = await before.runCommand({ command_id: "gone" });
    const after = await openOver(t.db, [touching("other", join(dir, "other"))]);
    const done = await settled(after, task.task_id);
    expect(done).toMatchObject({ status: "failed", reason: "COMMAND_UNKNOWN" });
    expect(existsSync(marker)).toBe(false);
  });
});
