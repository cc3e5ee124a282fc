import { join } from "node:path";
import { createRunsEngine, type Run, type RunChange, type RunsEngine } from "@vetted/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { openDatabase } from "./db.js";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

const TOKEN = "runs-stream-test-token-0123";
const AUTH = { authorization: `Bearer ${TOKEN}` };
let t: TestApp;
let server: Loopback;
let url: string;

beforeAll(async () => {
  // Short catch-up, so a second engine's commits reach the stream quickly; a slow worker poll, so only a kick
  // (this engine's own commits) wakes it and it never touches the runs of the second engine; short heartbeat.
  t = await createTestApp({ apiToken: TOKEN }, { catchUpMs: 100, pollMs: 60_000 });
  server = await serveOnLoopback(createApp({ ...t.deps, sseHeartbeatMs: 300 }).fetch);
  url = server.url;
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

interface Frame {
  id: number | undefined;
  event: string;
  data: string;
}

/** Follows `/api/runs/stream` over real HTTP, parsing frames as they arrive. */
async function follow(headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/runs/stream`, {
    headers: { ...AUTH, ...headers },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (reader === undefined) throw new Error("no body");
  let text = "";
  const frames = (): Frame[] =>
    text
      .split("\n\n")
      .slice(0, -1)
      .filter((block) => /^data:/m.test(block))
      .map((block) => {
        const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, "m").exec(block)?.[1];
        const id = field("id");
        return {
          id: id === undefined ? undefined : Number(id),
          event: field("event") ?? "message",
          data: field("data") ?? "",
        };
      });
  return {
    get text() {
      return text;
    },
    frames,
    changes: () =>
      frames()
        .filter((f) => f.event === "change")
        .map((f) => JSON.parse(f.data) as RunChange),
    async until(check: () => boolean, timeoutMs = 8000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`the stream never got there; received:\n${text}`);
        const timer = new Promise<"late">((r) => setTimeout(() => r("late"), deadline - Date.now()));
        const next = await Promise.race([reader.read(), timer]);
        if (next === "late") continue;
        if (next.done) throw new Error(`the stream ended; received:\n${text}`);
        text += next.value;
      }
    },
    close: () => controller.abort(),
  };
}

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { ...AUTH, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const parsed = (await res.json()) as T;
  if (!res.ok) throw new Error(`${path} → ${res.status}: ${JSON.stringify(parsed)}`);
  return parsed;
}

/** A flow that opens an input gate at once: its runs go queued → running → waiting_user. */
async function gateFlow(): Promise<string> {
  const flow = await post<{ id: string }>("/api/flows", {
    name: "ask",
    steps: [{ id: "ask", type: "input_gate", prompt: "Your postcode?" }],
  });
  return flow.id;
}

describe("GET /api/runs/stream over a real loopback server", { timeout: 30_000 }, () => {
  it("needs the token like every data route", async () => {
    const res = await fetch(`${url}/api/runs/stream`);
    expect(res.status).toBe(401);
  });

  it("starts with `ready` at the head, then streams a new run's creation and its moves into a wait", async () => {
    const stream = await follow();
    await stream.until(() => stream.frames().length > 0);
    const [ready] = stream.frames();
    expect(ready?.event).toBe("ready");
    const head = (JSON.parse(ready?.data ?? "{}") as { last_event_id: number }).last_event_id;
    expect(ready?.id).toBe(head);

    const run = await post<Run>("/api/runs", { flow_id: await gateFlow() });
    await stream.until(() =>
      stream.changes().some((c) => c.run_id === run.id && c.status === "waiting_user"),
    );
    const mine = stream.changes().filter((c) => c.run_id === run.id);
    expect(mine.map((c) => [c.type, c.from, c.status])).toEqual([
      ["run_created", null, "queued"],
      ["status_changed", "queued", "running"],
      ["status_changed", "running", "waiting_user"],
    ]);
    const ids = stream.frames().map((f) => f.id ?? -1);
    expect(ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? 0))).toBe(true); // increasing `id:` lines
    expect(ids.slice(1)).toEqual(stream.changes().map((c) => c.id));
    expect(Math.min(...ids.slice(1))).toBeGreaterThan(head);

    // Idle now: a heartbeat comment keeps the connection alive.
    await stream.until(() => stream.text.includes(": heartbeat"));
    stream.close();

    // Resuming after the creation sends the changes after it (no `ready`), then follows live ones.
    const created = mine[0]?.id ?? 0;
    const resumed = await follow({ "Last-Event-ID": String(created) });
    await resumed.until(() => resumed.changes().filter((c) => c.run_id === run.id).length >= 2);
    expect(resumed.frames()[0]?.event).toBe("change");
    expect(
      resumed
        .changes()
        .filter((c) => c.run_id === run.id)
        .map((c) => c.status),
    ).toEqual(["running", "waiting_user"]);
    await post(`/api/runs/${run.id}/resume`, { kind: "input", input_text: "12345" });
    await resumed.until(() => resumed.changes().some((c) => c.run_id === run.id && c.status === "success"));
    resumed.close();
  });

  it("starts afresh from the head when Last-Event-ID lies past it (an id kept from another database)", async () => {
    const fresh = await follow();
    await fresh.until(() => fresh.frames().length > 0);
    const head = fresh.frames()[0]?.id ?? 0;
    fresh.close();

    const stale = await follow({ "Last-Event-ID": String(head + 1_000_000) });
    await stale.until(() => stale.frames().length > 0);
    expect(stale.frames()[0]).toMatchObject({ event: "ready", id: head });
    const run = await post<Run>("/api/runs", { flow_id: await gateFlow() });
    await stale.until(() => stale.changes().some((c) => c.run_id === run.id && c.status === "waiting_user"));
    stale.close();
    await post(`/api/runs/${run.id}/resume`, { kind: "input", input_text: "12345" });
  });

  it("carries the runs another process creates on the same database (its hub's catch-up, no poll per client)", async () => {
    const flowId = await gateFlow();
    const other = await openDatabase({
      databaseUrl: `file:${join(t.dir, "test.db")}`,
      databaseAuthToken: undefined,
      dbBusyTimeoutMs: 5000,
    });
    // A second engine on its own connection, its worker never started: its commits are announced to its own
    // hub only, so only the catch-up of this server's hub can tell the stream about them.
    const engine: RunsEngine = createRunsEngine({
      db: other.db,
      secretsKey: Buffer.alloc(32, 7),
      dataDir: t.dir,
    });
    try {
      const streams = [await follow(), await follow()];
      for (const s of streams) await s.until(() => s.frames().length > 0);
      const run = await engine.createRun({ flow_id: flowId });
      for (const s of streams) {
        await s.until(() => s.changes().some((c) => c.run_id === run.id), 3000);
        s.close();
      }
      // Still queued: this server's worker never touched it, so its own commits did not carry the news.
      const seen = await fetch(`${url}/api/runs/${run.id}`, { headers: AUTH });
      expect(((await seen.json()) as Run).status).toBe("queued");
    } finally {
      await engine.stop();
      other.close();
    }
  });
});
