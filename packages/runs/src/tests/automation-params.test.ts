import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { optionLikeArgs } from "../domain/automation.js";
import { parseCommandsFile } from "../lanes/automation/commands-file.js";
import { type AutomationEngine, createAutomationEngine } from "../lanes/automation/engine.js";
import { createProcessCommand } from "../lanes/automation/process-command.js";
import { openTestEngine, TEST_SECRETS_KEY } from "./harness.js";

/*
 * What a request's params may turn into: no option where the command expects a positional value
 * (`PARAM_LOOKS_LIKE_OPTION`), and no path outside the allowed roots — not with `..`, not through a
 * symbolic link, not even one swapped after the task was queued (`PATH_OUTSIDE_ROOT`).
 */

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const COMMANDS = [
  {
    command_id: "show",
    title: "Echo a positional value",
    argv: ["echo", "${params.word}"],
    params_schema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  },
  {
    command_id: "show-after-dashes",
    title: "Echo after --",
    argv: ["sh", "-c", 'echo "got $2"', "sh", "--", "${params.word}"],
    params_schema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  },
  {
    command_id: "show-option",
    title: "A param inside an option",
    argv: ["echo", "--label=${params.word}"],
    params_schema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  },
  {
    command_id: "list",
    title: "List a folder inside the roots",
    argv: ["ls", "-d", "${params.target}"],
    path_params: ["target"],
    params_schema: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
  },
  {
    command_id: "where",
    title: "pwd in a folder a param names",
    argv: ["pwd"],
    cwd: "${params.dir}",
    params_schema: { type: "object", properties: { dir: { type: "string" } }, required: ["dir"] },
  },
];

async function setup() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "vetted-params-")));
  const root = join(base, "root");
  const outside = join(base, "outside");
  mkdirSync(join(root, "inner"), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(root, "inner"), join(root, "stay"));
  const t = await openTestEngine();
  const specs = parseCommandsFile(JSON.stringify(COMMANDS), [root]);
  const automation = createAutomationEngine({
    db: t.db,
    secretsKey: TEST_SECRETS_KEY,
    commands: specs.map((spec) =>
      createProcessCommand(spec, { env: process.env, killGraceMs: 300, allowedRoots: [root] }),
    ),
    pollMs: 30,
  });
  cleanups.push(async () => {
    await automation.stop();
    await t.close();
    rmSync(base, { recursive: true, force: true });
  });
  return { automation, root, outside };
}

async function finished(automation: AutomationEngine, taskId: string) {
  const end = Date.now() + 10_000;
  for (;;) {
    const task = await automation.getTask(taskId);
    if (task.status !== "queued" && task.status !== "running") return task;
    if (Date.now() > end) throw new Error(`task ${taskId} stayed ${task.status}`);
    await new Promise((r) => setTimeout(r, 30));
  }
}

describe("params that would become options", () => {
  it("finds the elements a param starts with '-', not those written so or after a literal --", () => {
    const argv = ["ls", "${params.a}", "-x${params.b}", "--", "${params.c}"];
    expect(optionLikeArgs(argv, ["ls", "--help", "-x-y", "--", "-z"])).toEqual([{ index: 1, params: ["a"] }]);
    expect(optionLikeArgs(argv, ["ls", "ok", "-x-y", "--", "-z"])).toEqual([]);
  });

  it("refuses a positional param that begins with '-' with PARAM_LOOKS_LIKE_OPTION, queueing nothing", async () => {
    const { automation } = await setup();
    const refused = automation.runCommand({ command_id: "show", params: { word: "--help" } });
    await expect(refused).rejects.toMatchObject({
      code: "PARAM_LOOKS_LIKE_OPTION",
      details: { command_id: "show", params: ["word"], argv_index: 1 },
    });
    expect((await automation.listTasks()).items).toEqual([]);
  });

  it("passes a '-' value after a literal -- and inside an option the operator wrote", async () => {
    const { automation } = await setup();
    await automation.start();
    const after = await automation.runCommand({ command_id: "show-after-dashes", params: { word: "-n" } });
    const inside = await automation.runCommand({ command_id: "show-option", params: { word: "-n" } });
    expect((await finished(automation, after.task_id)).output_tail).toContain("got -n");
    expect((await finished(automation, inside.task_id)).output_tail).toContain("--label=-n");
  });
});

describe("path params", () => {
  it("refuses a path outside the roots, with .. (even one that stays inside), relative, or through a link out of the roots", async () => {
    const { automation, root, outside } = await setup();
    for (const target of [outside, `${root}/inner/../inner`, "inner", join(root, "escape")]) {
      await expect(automation.runCommand({ command_id: "list", params: { target } })).rejects.toMatchObject({
        code: "PATH_OUTSIDE_ROOT",
      });
    }
    await expect(
      automation.runCommand({ command_id: "where", params: { dir: join(root, "escape") } }),
    ).rejects.toMatchObject({ code: "PATH_OUTSIDE_ROOT" });
    expect((await automation.listTasks()).items).toEqual([]);
  });

  it("hands the program the real path of a path inside the roots, and runs in a confined cwd", async () => {
    const { automation, root } = await setup();
    await automation.start();
    const listed = await automation.runCommand({
      command_id: "list",
      params: { target: join(root, "stay") },
    });
    const where = await automation.runCommand({ command_id: "where", params: { dir: join(root, "stay") } });
    expect(await finished(automation, listed.task_id)).toMatchObject({ status: "success" });
    expect((await automation.getTask(listed.task_id)).output_tail).toContain(join(root, "inner"));
    expect((await finished(automation, where.task_id)).output_tail).toContain(join(root, "inner"));
  });

  it("refuses a commands file whose path_params or cwd name a param its params_schema lacks", () => {
    const entry = {
      command_id: "x",
      title: "x",
      argv: ["true"],
      params_schema: { type: "object", properties: {} },
    };
    expect(() => parseCommandsFile(JSON.stringify([{ ...entry, path_params: ["nope"] }]), [])).toThrow(
      /path_params refer to params not in params_schema: nope/,
    );
    expect(() =>
      parseCommandsFile(JSON.stringify([{ ...entry, cwd: "relative/${params.dir}" }]), []),
    ).toThrow(/must start with an absolute path/);
  });

  it("fails a queued task whose link was turned outside the roots before it started", async () => {
    const { automation, root, outside } = await setup();
    const task = await automation.runCommand({ command_id: "where", params: { dir: join(root, "stay") } });
    unlinkSync(join(root, "stay"));
    symlinkSync(outside, join(root, "stay"));
    await automation.start();
    const failed = await finished(automation, task.task_id);
    expect(failed).toMatchObject({ status: "failed", reason: "SPAWN_FAILED" });
    expect(failed.message).toContain("outside the allowed roots");
  });
});
