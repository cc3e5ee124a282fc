import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "@vetted/fileorg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "../tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An open `/api/jobs/stream`: read until a condition holds on the text so far, then close. */
async function openJobsStream(headers: Record<string, string> = {}) {
  if (t === undefined) throw new Error("no app");
  const res = await t.app.request("/api/jobs/stream", { headers: { ...LOCAL, ...headers } });
  const reader = res.body?.getReader();
  if (reader === undefined) throw new Error("no body");
  const decoder = new TextDecoder();
  let text = "";
  return {
    async readUntil(done: (text: string) => boolean): Promise<string> {
      const deadline = Date.now() + 20_000;
      while (!done(text)) {
        if (Date.now() > deadline) throw new Error(`stream never got there:\n${text}`);
        const { value, done: ended } = await reader.read();
        if (ended) break;
        text += decoder.decode(value);
      }
      return text;
    },
    close: () => reader.cancel(),
  };
}

async function analyzeFolder(name: string): Promise<Job> {
  if (t === undefined) throw new Error("no app");
  const dir = join(t.dir, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "a.txt"), name);
  return t.deps.fileorg.analyze({ source_dir: dir }, { actor: "local" });
}

/** The frames of an event stream: `{id, event, data}` each. */
function framesOf(text: string): Array<{ id?: number; event?: string; data: string }> {
  return text
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => {
      const field = (name: string) => new RegExp(`^${name}: ?(.*)$`, "m").exec(block)?.[1];
      const id = field("id");
      const event = field("event");
      return {
        ...(id === undefined ? {} : { id: Number(id) }),
        ...(event === undefined ? {} : { event }),
        data: field("data") ?? "",
      };
    });
}

describe("GET /api/jobs/stream", () => {
  it("starts with a snapshot as of the last event, then only changes after it — no history replay", async () => {
    t = await createTestApp();
    const old = await analyzeFolder("old");
    await t.deps.fileorg.waitForJob(old.job_id);
    const stream = await openJobsStream();
    const fresh = await analyzeFolder("fresh");
    const text = await stream.readUntil((s) => s.includes('"type":"finished"'));
    await stream.close();
    const [snapshot, ...changes] = framesOf(text);
    expect(snapshot?.event).toBe("snapshot");
    const body = JSON.parse(snapshot?.data ?? "{}") as { last_event_id: number; items: Job[] };
    expect(body.last_event_id).toBeGreaterThan(0);
    expect(snapshot?.id).toBe(body.last_event_id);
    expect(body.items.map((j) => j.job_id)).not.toContain(old.job_id);
    expect(changes.length).toBeGreaterThan(0);
    for (const frame of changes) {
      expect(frame.event).toBe("job");
      expect(frame.id).toBeGreaterThan(body.last_event_id);
      expect((JSON.parse(frame.data) as { job: Job }).job.job_id).toBe(fresh.job_id);
    }
  });

  it("lists the jobs not finished in the snapshot", async () => {
    t = await createTestApp();
    await t.deps.fileorg.stop(); // nothing runs: a new job stays queued
    const queued = await analyzeFolder("waiting");
    const stream = await openJobsStream();
    const text = await stream.readUntil((s) => s.includes("event: snapshot") && s.includes("\n\n"));
    await stream.close();
    const [snapshot] = framesOf(text);
    const body = JSON.parse(snapshot?.data ?? "{}") as { items: Job[] };
    expect(body.items.map((j) => [j.job_id, j.status])).toEqual([[queued.job_id, "queued"]]);
  });

  it("replays the history after Last-Event-ID, and sends no snapshot then", async () => {
    t = await createTestApp();
    const old = await analyzeFolder("old");
    await t.deps.fileorg.waitForJob(old.job_id);
    const stream = await openJobsStream({ "Last-Event-ID": "0" });
    const text = await stream.readUntil((s) => s.includes('"type":"finished"'));
    await stream.close();
    const frames = framesOf(text);
    expect(frames.map((f) => f.event)).not.toContain("snapshot");
    expect(frames[0]?.id).toBe(1);
    expect((JSON.parse(frames[0]?.data ?? "{}") as { job: Job }).job.job_id).toBe(old.job_id);
  });
});
