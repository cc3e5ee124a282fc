import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

/*
 * Automation processes do not outlive the server that started them: a real server runs long tasks (one
 * whose script starts a `setsid` child, which leaves the task's process group), is SIGKILLed, and a new
 * server on the same data directory ends every process the tasks left before it fails the plain task
 * `INTERRUPTED` and runs the idempotent one again — once. The lease is long, so this also shows the new
 * server does not wait for it: the dead owner's pid is enough.
 */

/**
 * Prints `pid <n>` for the shell, a `setsid` child (a session and group of its own), a plain child, and a
 * daemon: `setsid` in a subshell that exits at once, so the daemon's parent is gone too.
 */
const TREE = [
  "sh",
  "-c",
  [
    'echo "pid $$"; setsid sleep 300 & echo "pid $!"; sleep 300 & echo "pid $!"',
    "(setsid sh -c 'echo \"pid $$\"; exec sleep 300' &)",
    "wait",
  ].join("; "),
];
const TREE_SIZE = 4;
const COMMANDS = [
  { command_id: "tree", title: "A process tree", argv: TREE, timeout_s: 600 },
  { command_id: "tree-again", title: "Idempotent tree", argv: TREE, timeout_s: 600, idempotent: true },
];

let dir: string;
let server: ServerProcess;
const started: number[] = [];
const queued: string[] = [];

function envFor(): Record<string, string> {
  return {
    VETTED_DATA_DIR: dir,
    VETTED_ALLOWED_ROOTS: dir,
    VETTED_AUTOMATION_COMMANDS: join(dir, "commands.json"),
    VETTED_AUTOMATION_MAX_PARALLEL: "2",
    VETTED_AUTOMATION_LEASE_MS: "600000",
    VETTED_AUTOMATION_KILL_GRACE_MS: "500",
  };
}

interface Task {
  task_id: string;
  status: string;
  attempt: number;
  reason: string | null;
  output_tail: string[];
}

async function task(id: string): Promise<Task> {
  return (await (await fetch(`${server.url}/api/automation/tasks/${id}`)).json()) as Task;
}

async function until(id: string, ok: (t: Task) => boolean, ms = 30_000): Promise<Task> {
  const end = Date.now() + ms;
  for (;;) {
    const t = await task(id);
    if (ok(t)) return t;
    if (Date.now() > end) throw new Error(`task ${id} never got there: ${JSON.stringify(t)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function queue(commandId: string): Promise<string> {
  const res = await fetch(`${server.url}/api/automation/run`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ command_id: commandId }),
  });
  expect(res.status).toBe(202);
  const { task_id } = (await res.json()) as Task;
  queued.push(task_id);
  return task_id;
}

function printedPids(t: Task): number[] {
  return t.output_tail.filter((l) => /^pid \d+$/.test(l)).map((l) => Number(l.slice(4)));
}

/** The pids the `attempts`-th attempt's tree printed, once it printed them all. */
async function treeOf(id: string, attempts = 1): Promise<number[]> {
  const t = await until(id, (x) => printedPids(x).length >= attempts * TREE_SIZE);
  return printedPids(t).slice((attempts - 1) * TREE_SIZE, attempts * TREE_SIZE);
}

/** True while a process exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const state = /State:\s+(\w)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return state !== undefined && state !== "Z";
  } catch {
    return false;
  }
}

/** The live processes whose environment carries the task's marker. */
function marked(taskId: string): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
        return env.includes(`VETTED_TASK_ID=${taskId}`) && alive(pid);
      } catch {
        return false;
      }
    });
}

async function gone(pids: number[], ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-automation-crash-")));
  writeFileSync(join(dir, "commands.json"), JSON.stringify(COMMANDS));
  server = await startServerProcess(envFor(), 60_000);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  for (const pid of [...started, ...queued.flatMap(marked)]) if (alive(pid)) process.kill(pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("automation processes across a server crash", () => {
  it("ends every process of a task the dead server left, setsid children too, and runs an idempotent task once", async () => {
    const plain = await queue("tree");
    const idem = await queue("tree-again");
    const plainPids = await treeOf(plain);
    const idemPids = await treeOf(idem);
    started.push(...plainPids, ...idemPids);
    expect(plainPids).toHaveLength(TREE_SIZE);
    expect([...plainPids, ...idemPids].every(alive)).toBe(true);
    const [shell = 0, setsidChild = 0, , daemon = 0] = plainPids;
    // The setsid child leads a group and session of its own; the daemon's parent is not the task's shell.
    expect(readFileSync(`/proc/${setsidChild}/stat`, "utf8")).toMatch(
      new RegExp(`^${setsidChild} \\(sleep\\) S ${shell} ${setsidChild} ${setsidChild} `),
    );
    expect(readFileSync(`/proc/${daemon}/stat`, "utf8")).toMatch(
      new RegExp(`^${daemon} \\(sleep\\) S (?!${shell} )\\d+ ${daemon} ${daemon} `),
    );

    await server.kill();
    expect([...plainPids, ...idemPids].every(alive)).toBe(true); // the crash alone ends nothing
    server = await startServerProcess(envFor(), 60_000);

    expect(await gone([...plainPids, ...idemPids])).toBe(true);
    expect(await until(plain, (t) => t.status !== "running")).toMatchObject({
      status: "failed",
      reason: "INTERRUPTED",
    });
    const again = await treeOf(idem, 2);
    started.push(...again);
    expect((await task(idem)).attempt).toBe(2);
    expect(again.every(alive)).toBe(true);
    expect(marked(idem).sort()).toEqual([...again].sort());
    expect(marked(plain)).toEqual([]);

    await fetch(`${server.url}/api/automation/tasks/${idem}/cancel`, { method: "POST" });
    expect(await gone(again)).toBe(true);
  }, 120_000);
});
