import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HubMessage, Job } from "@vetted/fileorg";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { type StreamSource, streamEvents } from "./sse.js";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

/** A stored, numbered event list with an in-process hub in front of it: what an engine gives a stream. */
class EventLog implements StreamSource<{ id: number; text: string }> {
  readonly stored: { id: number; text: string }[] = [];
  readonly listeners = new Set<(m: { id: number; text: string }) => void>();
  replayCalls = 0;

  append(text: string): void {
    const message = { id: this.stored.length + 1, text };
    this.stored.push(message);
    for (const listener of this.listeners) listener(message);
  }

  async replay(afterId: number) {
    this.replayCalls++;
    return this.stored.filter((m) => m.id > afterId).slice(0, 3); // pages of 3, to exercise paging
  }

  subscribe(listener: (m: { id: number; text: string }) => void) {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

const servers: Loopback[] = [];
let t: TestApp | undefined;
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await t?.close();
  t = undefined;
});

/** Serves `fetch` on an ephemeral 127.0.0.1 port through the server's real Node HTTP server. */
async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<string> {
  const server = await serveOnLoopback(fetch);
  servers.push(server);
  return server.url;
}

function logServer(log: EventLog, heartbeatMs: number) {
  const app = new Hono().get("/stream", (c) =>
    streamEvents(c, {
      source: log,
      heartbeatMs,
      idOf: (m) => m.id,
      frames: (m) => [{ event: "note", data: m.text }],
      isLast: (m) => m.text === "end",
    }),
  );
  return listen(app.fetch);
}

/** An open SSE response read chunk by chunk until `until` holds for what arrived so far. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  return {
    get text() {
      return text;
    },
    async readUntil(until: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
      const deadline = Date.now() + timeoutMs;
      while (!until(text)) {
        if (Date.now() > deadline) throw new Error(`stream never got there; received:\n${text}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    close: () => controller.abort(),
  };
}

const idsOf = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the SSE helper over a real server", () => {
  it("sends a heartbeat comment whenever the stream is idle for the interval", async () => {
    const log = new EventLog();
    const url = await logServer(log, 40);
    const stream = await openStream(`${url}/stream`);
    const text = await stream.readUntil((s) => (s.match(/^: heartbeat$/gm) ?? []).length >= 3);
    expect(idsOf(text)).toEqual([]);
    stream.close();
  });

  it("resumes after Last-Event-ID with every later event exactly once, stored then live, in order", async () => {
    const log = new EventLog();
    for (let i = 1; i <= 7; i++) log.append(`stored ${i}`);
    const url = await logServer(log, 10_000);
    const stream = await openStream(`${url}/stream`, { "Last-Event-ID": "2" });
    await stream.readUntil((s) => idsOf(s).includes(7));
    expect(log.replayCalls).toBe(3); // 3 + 2 stored events after id 2 in pages of 3, then an empty page
    for (let i = 8; i <= 10; i++) log.append(`live ${i}`);
    log.append("end");
    const text = await stream.readUntil((s) => s.includes("data: end"));
    expect(idsOf(text)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(text).toContain("data: stored 3");
    expect(text).not.toContain("data: stored 2");
    expect(log.replayCalls).toBe(3); // live events come from the hub, never from polling the log
  });

  it("sends an event published while the replay runs once, not twice", async () => {
    const log = new EventLog();
    log.append("stored 1");
    const replay = log.replay.bind(log);
    log.replay = async (afterId) => {
      const page = await replay(afterId);
      if (log.replayCalls === 1) log.append("published during replay"); // after the page was read
      return page;
    };
    const url = await logServer(log, 10_000);
    const stream = await openStream(`${url}/stream`);
    log.append("end");
    const text = await stream.readUntil((s) => s.includes("data: end"));
    expect(idsOf(text)).toEqual([1, 2, 3]);
  });

  it("unsubscribes from the hub when the client goes away", async () => {
    const log = new EventLog();
    const url = await logServer(log, 50);
    const first = await openStream(`${url}/stream`);
    const second = await openStream(`${url}/stream`);
    await first.readUntil((s) => s.includes(": heartbeat"));
    await second.readUntil((s) => s.includes(": heartbeat"));
    expect(log.listeners.size).toBe(2);
    first.close();
    await waitFor(() => log.listeners.size === 1);
    second.close();
    await waitFor(() => log.listeners.size === 0);
  });

  it("unsubscribes when the stream ends with its last event", async () => {
    const log = new EventLog();
    log.append("end");
    const url = await logServer(log, 10_000);
    const res = await fetch(`${url}/stream`);
    expect(await res.text()).toContain("data: end");
    await waitFor(() => log.listeners.size === 0);
  });
});

describe("the job streams", () => {
  async function jobServer() {
    t = await createTestApp();
    const deps = t.deps;
    const listeners = { count: 0 };
    const fileorg = {
      ...deps.fileorg,
      subscribe(listener: (m: HubMessage) => void) {
        listeners.count++;
        const off = deps.fileorg.subscribe(listener);
        return () => {
          listeners.count--;
          off();
        };
      },
    };
    const app = createApp({ ...deps, fileorg, sseHeartbeatMs: 40 });
    return { url: await listen(app.fetch), listeners, dir: t.dir };
  }

  async function analyzed(url: string, dir: string): Promise<string> {
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.txt"), "a");
    const res = await fetch(`${url}/api/jobs/analyze`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ source_dir: join(dir, "src") }),
    });
    const job = (await res.json()) as Job;
    const stream = await fetch(`${url}/api/jobs/${job.job_id}/events/stream`);
    expect(await stream.text()).toContain("event: finished");
    return job.job_id;
  }

  it("heartbeat on /api/jobs/stream and unsubscribe on disconnect", async () => {
    const { url, listeners } = await jobServer();
    const stream = await openStream(`${url}/api/jobs/stream`);
    await stream.readUntil((s) => (s.match(/^: heartbeat$/gm) ?? []).length >= 2);
    expect(listeners.count).toBe(1);
    stream.close();
    await waitFor(() => listeners.count === 0);
  });

  it("resumes a job's event stream after Last-Event-ID without duplicates or gaps", async () => {
    const { url, dir } = await jobServer();
    const jobId = await analyzed(url, dir);
    const all = idsOf(await (await fetch(`${url}/api/jobs/${jobId}/events/stream`)).text());
    expect(all.length).toBeGreaterThan(2);
    expect(all).toEqual(all.map((_, i) => i + 1));
    const resumed = await fetch(`${url}/api/jobs/${jobId}/events/stream`, {
      headers: { "Last-Event-ID": "2" },
    });
    expect(idsOf(await resumed.text())).toEqual(all.slice(2));
    const global = await openStream(`${url}/api/jobs/stream`, { "Last-Event-ID": "1" });
    const text = await global.readUntil((s) => s.includes('"type":"finished"'));
    const globalIds = idsOf(text);
    expect(globalIds[0]).toBe(2);
    expect(new Set(globalIds).size).toBe(globalIds.length);
    global.close();
  });
});
