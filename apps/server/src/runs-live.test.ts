import type { Run } from "@vetted/runs";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { apiClient } from "./tests/api-client.js";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

const TOKEN = "runs-live-test-token-0123";
const AUTH = { authorization: `Bearer ${TOKEN}` };
let site: TestSite;
let t: TestApp;
let server: Loopback;

beforeAll(async () => {
  site = await startTestSite();
  t = await createTestApp({ apiToken: TOKEN }, { protectedDomains: [site.payHost] });
  server = await serveOnLoopback(createApp({ ...t.deps, sseHeartbeatMs: 300 }).fetch);
});
afterAll(async () => {
  await server?.close();
  await t?.close();
  await site?.close();
});

/** The first `frame` event of `/api/runs/{id}/live`, and how long it took from the request. */
async function firstFrame(runId: string) {
  const controller = new AbortController();
  const t0 = performance.now();
  const res = await fetch(`${server.url}/api/runs/${runId}/live`, {
    headers: AUTH,
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (reader === undefined) throw new Error("no body");
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a frame: ${text}`);
    text += value;
    const block = text.split("\n\n").find((b) => /^event: frame$/m.test(b));
    const data = block === undefined ? undefined : /^data: (.*)$/m.exec(block)?.[1];
    if (data !== undefined) {
      const ms = performance.now() - t0;
      controller.abort();
      return { frame: JSON.parse(data) as { data: string; width: number; height: number }, ms };
    }
  }
}

describe("/api/runs/{id}/live (real Chromium, real HTTP)", { timeout: 90_000 }, () => {
  it("streams the waiting run's page, takes control, forwards a click, hands back; the run finishes with the click's state", async () => {
    const raw = apiClient(server.url);
    const api = {
      get: (path: string) => raw.call("GET", path, undefined, AUTH),
      post: (path: string, body?: unknown) => raw.call("POST", path, body, AUTH),
    };
    const flow = await api.post("/api/flows", {
      name: "takeover",
      steps: [
        { id: "open", type: "navigate", url: `${site.url}/takeover` },
        { id: "person", type: "approval_gate", prompt: "Press the button by hand" },
        { id: "clicked", type: "assert", text: "Clicked by hand" },
      ],
    });
    expect(flow.status, JSON.stringify(flow.json)).toBe(201);
    const created = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id });
    const runId = created.run.id;
    const live = `/api/runs/${runId}/live`;
    let run: Run = created.run;
    for (let i = 0; i < 800 && run.status !== "waiting_user"; i++) {
      await new Promise((r) => setTimeout(r, 25));
      run = (await api.get(`/api/runs/${runId}`)).run;
    }
    expect(run.status, JSON.stringify(run.error)).toBe("waiting_user");

    expect((await fetch(`${server.url}${live}`)).status).toBe(401); // the same auth as every run route

    const { frame, ms } = await firstFrame(runId);
    console.info(`live view over HTTP: first frame ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1_000);
    expect(frame).toMatchObject({ width: 1280, height: 800 });

    const click = { type: "click", x: 200, y: 150 };
    const refused = await api.post(`${live}/input`, { holder: "tab1", input: click });
    expect([refused.status, refused.code]).toEqual([409, "TAKEOVER_NOT_IN_CONTROL"]);
    const bad = await api.post(`${live}/input`, { holder: "tab1", input: { type: "click", x: -1 } });
    expect([bad.status, bad.code]).toEqual([400, "VALIDATION_FAILED"]);

    const taken = await api.post(`${live}/control`, { holder: "tab1" });
    expect(taken.status, JSON.stringify(taken.json)).toBe(200);
    expect(taken.json).toMatchObject({ by: "token:tab1" });
    const other = await api.post(`${live}/control`, { holder: "tab2" });
    expect([other.status, other.code]).toEqual([409, "TAKEOVER_IN_CONTROL_ELSEWHERE"]);
    expect((await api.get(`${live}/status`)).json).toMatchObject({
      live: true,
      in_control: { by: "token:tab1" },
    });

    const sent = await api.post(`${live}/input`, { holder: "tab1", input: click });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    const typed = await api.post(`${live}/input`, {
      holder: "tab1",
      input: { type: "type", text: "s3cret" },
    });
    expect(typed.status).toBe(200);
    expect((await api.post(`${live}/hand-back`, { holder: "tab1" })).status).toBe(200);

    const resumed = await api.post(`/api/runs/${runId}/resume`, { kind: "approval", approved: true });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    let done: Run = resumed.run;
    for (
      let i = 0;
      i < 1200 && (done.status === "queued" || done.status === "running" || done.status === "waiting_user");
      i++
    ) {
      await new Promise((r) => setTimeout(r, 25));
      done = (await api.get(`/api/runs/${runId}`)).run;
    }
    expect(done.status, JSON.stringify(done.error)).toBe("success");

    const events = (await api.get(`/api/runs/${runId}/events?limit=500`)).json as {
      items: Array<{ type: string; data: Record<string, unknown> }>;
    };
    expect(events.items.filter((e) => e.type.startsWith("takeover_")).map((e) => e.type)).toEqual([
      "takeover_started",
      "takeover_input",
      "takeover_input",
      "takeover_ended",
    ]);
    expect(JSON.stringify(events)).not.toContain("s3cret");

    const after = await fetch(`${server.url}${live}`, { headers: AUTH });
    expect(after.status).toBe(409);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("TAKEOVER_NOT_WAITING");
    const missing = await api.post(`/api/runs/run_nope/live/control`, { holder: "tab1" });
    expect([missing.status, missing.code]).toEqual([404, "RUN_NOT_FOUND"]);
  });
});
