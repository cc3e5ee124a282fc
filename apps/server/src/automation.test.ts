import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

/*
 * The automation lane over HTTP against real server processes (`main.ts`): commands file, tasks, SSE,
 * process-group kills, timeouts, retries, the queue cap, and recovery after a SIGKILL of the server.
 */

const SLEEPER = ["sh", "-c", "echo $$; sleep 30 & echo $!; wait"];
const COMMANDS = [
  {
    command_id: "hello",
    title: "Hello",
    argv: ["sh", "-c", 'echo "hello $0"; echo "key=$1"', "${params.who}", "${params.key}"],
    params_schema: {
      type: "object",
      properties: { who: { type: "string" }, key: { type: "string", writeOnly: true } },
      required: ["who"],
    },
  },
  { command_id: "sleeper", title: "Sleep", argv: SLEEPER, timeout_s: 120 },
  { command_id: "slow", title: "Times out", argv: SLEEPER, timeout_s: 1 },
  { command_id: "flaky", title: "Always fails", argv: ["sh", "-c", "echo try; exit 3"], retries: 2 },
  { command_id: "wipe", title: "Dangerous", argv: ["true"], high_risk: true },
  { command_id: "again", title: "Idempotent", argv: ["sh", "-c", "sleep 1; echo fine"], idempotent: true },
  {
    command_id: "show",
    title: "Echo a word",
    argv: ["echo", "${params.word}"],
    params_schema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
  },
  {
    command_id: "list",
    title: "List a folder",
    argv: ["ls", "-d", "${params.target}"],
    cwd: "${params.target}",
    path_params: ["target"],
    params_schema: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
  },
];

let dir: string;
let server: ServerProcess;
const headers = { "content-type": "application/json" };

function envFor(extra: Record<string, string> = {}): Record<string, string> {
  return {
    VETTED_DATA_DIR: dir,
    VETTED_ALLOWED_ROOTS: dir,
    VETTED_AUTOMATION_COMMANDS: join(dir, "commands.json"),
    VETTED_AUTOMATION_MAX_PARALLEL: "2",
    VETTED_AUTOMATION_QUEUE_MAX: "3",
    VETTED_AUTOMATION_LEASE_MS: "1500",
    VETTED_AUTOMATION_KILL_GRACE_MS: "500",
    VETTED_AUTOMATION_RETRY_BASE_MS: "100",
    ...extra,
  };
}

interface Task {
  task_id: string;
  status: string;
  attempt: number;
  reason: string | null;
  output_tail: string[];
  exit_code: number | null;
}

async function run(body: unknown, extraHeaders: Record<string, string> = {}) {
  return fetch(`${server.url}/api/automation/run`, {
    method: "POST",
    headers: { ...headers, ...extraHeaders },
    body: JSON.stringify(body),
  });
}

async function task(id: string): Promise<Task> {
  return (await (await fetch(`${server.url}/api/automation/tasks/${id}`)).json()) as Task;
}

async function until(id: string, ok: (t: Task) => boolean, ms = 60_000): Promise<Task> {
  const end = Date.now() + ms;
  for (;;) {
    const t = await task(id);
    if (ok(t)) return t;
    if (Date.now() > end) throw new Error(`task ${id} never got there: ${JSON.stringify(t)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The pids a SLEEPER task printed (its shell and the sleep it started). */
async function pidsOf(id: string): Promise<number[]> {
  const t = await until(id, (x) => x.output_tail.filter((l) => /^\d+$/.test(l)).length >= 2);
  return t.output_tail.filter((l) => /^\d+$/.test(l)).map(Number);
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

async function gone(pids: number[], ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-automation-")));
  writeFileSync(join(dir, "commands.json"), JSON.stringify(COMMANDS));
  server = await startServerProcess(envFor(), 60_000);
}, 90_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the automation lane over HTTP", () => {
  it("lists the built-ins and the operator's commands", async () => {
    const body = (await (await fetch(`${server.url}/api/automation/commands`)).json()) as {
      items: { command_id: string }[];
    };
    expect(body.items.map((c) => c.command_id)).toEqual(
      expect.arrayContaining([
        "replay-flow",
        "analyze-folder",
        "validate-comparison",
        "hello",
        "sleeper",
        "wipe",
      ]),
    );
  });

  it("runs a command, streams its lines over SSE and ends with success, secrets redacted", async () => {
    const res = await run({ command_id: "hello", params: { who: "world", key: "very-secret-key" } });
    expect(res.status).toBe(202);
    const { task_id } = (await res.json()) as Task;
    const stream = await fetch(`${server.url}/api/automation/tasks/${task_id}/stream`);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const text = await stream.text();
    expect(text).toContain("hello world");
    expect(text).toContain("key=[redacted]");
    expect(text).not.toContain("very-secret-key");
    expect(text).toMatch(/event: end\ndata: \{[^\n]*"status":"success"/);
    expect((await task(task_id)).output_tail).toContain("hello world");
  }, 60_000);

  it("cancels a sleeping command by killing its whole process group", async () => {
    const { task_id } = (await (await run({ command_id: "sleeper" })).json()) as Task;
    const pids = await pidsOf(task_id);
    expect(pids.every(alive)).toBe(true);
    const res = await fetch(`${server.url}/api/automation/tasks/${task_id}/cancel`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(await gone(pids)).toBe(true);
    expect(await until(task_id, (t) => t.status !== "running")).toMatchObject({
      status: "cancelled",
      reason: "CANCELLED",
    });
    const again = await fetch(`${server.url}/api/automation/tasks/${task_id}/cancel`, { method: "POST" });
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("TASK_FINISHED");
  }, 60_000);

  it("answers the same task to a re-run with the same Idempotency-Key", async () => {
    const a = (await (
      await run({ command_id: "hello", params: { who: "x" } }, { "Idempotency-Key": "same-1" })
    ).json()) as Task;
    const b = (await (
      await run({ command_id: "hello", params: { who: "x" } }, { "Idempotency-Key": "same-1" })
    ).json()) as Task;
    expect(b.task_id).toBe(a.task_id);
    const other = await run({ command_id: "hello", params: { who: "y" } }, { "Idempotency-Key": "same-1" });
    expect(other.status).toBe(422);
  });

  it("kills a command past its timeout", async () => {
    const { task_id } = (await (await run({ command_id: "slow" })).json()) as Task;
    const pids = await pidsOf(task_id);
    expect(await until(task_id, (t) => t.status === "failed", 30_000)).toMatchObject({ reason: "TIMEOUT" });
    expect(await gone(pids)).toBe(true);
  }, 60_000);

  it("retries a failing command with backoff before failing it", async () => {
    const { task_id } = (await (await run({ command_id: "flaky" })).json()) as Task;
    const done = await until(task_id, (t) => t.status === "failed", 30_000);
    expect(done).toMatchObject({ attempt: 3, exit_code: 3, reason: "EXIT_NONZERO" });
    expect(done.output_tail.filter((l) => l.includes("retrying in"))).toHaveLength(2);
  }, 60_000);

  it("refuses a high-risk command without confirm, unknown commands and bad params", async () => {
    const refused = await run({ command_id: "wipe" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("CONFIRMATION_REQUIRED");
    expect((await run({ command_id: "wipe", confirm: true })).status).toBe(202);
    expect((await run({ command_id: "nope" })).status).toBe(404);
    expect((await run({ command_id: "hello", params: { who: 3 } })).status).toBe(422);
    const outside = await run({ command_id: "validate-comparison", params: { path: "/etc/passwd" } });
    expect(outside.status).toBe(403);
  });

  it("refuses a positional param that begins with '-' and a path param outside the roots", async () => {
    const injected = await run({ command_id: "show", params: { word: "--help" } });
    expect(injected.status).toBe(422);
    expect(((await injected.json()) as { error: { code: string; details: unknown } }).error).toMatchObject({
      code: "PARAM_LOOKS_LIKE_OPTION",
      details: { params: ["word"], argv_index: 1 },
    });
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "vetted-outside-")));
    mkdirSync(join(dir, "inside"), { recursive: true });
    symlinkSync(outside, join(dir, "link-out"));
    for (const target of [outside, join(dir, "link-out"), `${dir}/inside/../inside`, "inside"]) {
      const res = await run({ command_id: "list", params: { target } });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PATH_OUTSIDE_ROOT");
    }
    rmSync(outside, { recursive: true, force: true });
    const ok = (await (
      await run({ command_id: "list", params: { target: join(dir, "inside") } })
    ).json()) as Task;
    expect(await until(ok.task_id, (t) => t.status === "success", 30_000)).toMatchObject({
      output_tail: expect.arrayContaining([join(dir, "inside")]),
    });
  }, 60_000);

  it("answers 429 QUEUE_FULL with Retry-After once the queue is full", async () => {
    const ids: string[] = [];
    let full: Response | undefined;
    for (let i = 0; i < 8 && full === undefined; i++) {
      const res = await run({ command_id: "sleeper" });
      if (res.status === 429) full = res;
      else ids.push(((await res.json()) as Task).task_id);
    }
    expect(full?.headers.get("retry-after")).toBe("1");
    expect(((await full?.json()) as { error?: { code: string } } | undefined)?.error?.code).toBe(
      "QUEUE_FULL",
    );
    for (const id of ids) await fetch(`${server.url}/api/automation/tasks/${id}/cancel`, { method: "POST" });
    const list = (await (
      await fetch(`${server.url}/api/automation/tasks?command_id=sleeper&status=cancelled&limit=2`)
    ).json()) as { items: Task[]; next_cursor: string | null };
    expect(list.items).toHaveLength(2);
    expect(list.next_cursor).not.toBeNull();
  }, 60_000);
});

describe("the automation lane across a crash", () => {
  it("leaves no task running after a SIGKILL of the server: failed INTERRUPTED, or re-queued and finished", async () => {
    const plain = (await (await run({ command_id: "sleeper" })).json()) as Task;
    const idem = (await (await run({ command_id: "again" })).json()) as Task;
    const pids = await pidsOf(plain.task_id);
    await until(idem.task_id, (t) => t.status === "running");
    await server.kill();
    server = await startServerProcess(envFor(), 60_000);
    expect(await gone(pids)).toBe(true); // the new server ends what the killed one left running
    expect(await until(plain.task_id, (t) => t.status !== "running", 30_000)).toMatchObject({
      status: "failed",
      reason: "INTERRUPTED",
    });
    expect(await until(idem.task_id, (t) => t.status === "success", 30_000)).toMatchObject({
      status: "success",
    });
    const running = (await (await fetch(`${server.url}/api/automation/tasks?status=running`)).json()) as {
      items: Task[];
    };
    expect(running.items).toEqual([]);
  }, 120_000);

  it("stops at start when the commands file is bad, naming the entry", async () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify([COMMANDS[0], { command_id: "broken", title: "x", argv: [] }]));
    const failed = await startServerProcess(envFor({ VETTED_AUTOMATION_COMMANDS: bad }), 60_000).then(
      () => "started",
      (err: unknown) => String(err),
    );
    expect(failed).toContain("exited with code 2");
    expect(failed).toContain('entry 1 (command_id "broken")');
  }, 90_000);
});
