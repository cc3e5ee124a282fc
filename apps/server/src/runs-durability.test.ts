import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Run } from "@vetted/runs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type FakeShop, GOOD_OTP, startFakeShop } from "./tests/fake-shop.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let dir: string;
let shop: FakeShop;
const servers: ServerProcess[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-runs-durable-"));
  shop = await startFakeShop();
});

afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  await shop.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A server on the shared data dir; a short lease lets the takeover tests run quickly. */
async function start(leaseMs = 800): Promise<ServerProcess> {
  const server = await startServerProcess({
    VETTED_DATA_DIR: dir,
    VETTED_PROTECTED_PROVIDER_DOMAINS: "127.0.0.2",
    VETTED_RUNS_LEASE_MS: String(leaseMs),
    VETTED_RUNS_POLL_MS: "50",
    VETTED_RUNS_CONCURRENCY: "8",
  });
  servers.push(server);
  return server;
}

async function flowRun(api: ReturnType<typeof apiClient>, steps: unknown[], count: number): Promise<Run[]> {
  const flow = await api.post("/api/flows", { name: "durable", steps });
  const flowId = (flow.json as { id: string }).id;
  const out: Run[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.post("/api/runs", { flow_id: flowId, params: { shop: shop.shopUrl } });
    expect(res.status).toBe(201);
    out.push(res.run);
  }
  return out;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const SLOW_FLOW = [
  { id: "start", type: "http", method: "POST", url: "${params.shop}/start", expect: { status: [200] } },
  { id: "nap", type: "wait", seconds: 2 },
  { id: "finish", type: "http", method: "POST", url: "${params.shop}/finish", expect: { status: [200] } },
];

const OTP_FLOW = [
  { id: "code", type: "otp_gate", prompt: "Code?" },
  {
    id: "pay",
    type: "http",
    method: "POST",
    url: "${params.shop}/pay",
    body: { otp: "${gate.otp_code}" },
    expect: { status: [200] },
  },
];

// Each test starts real server processes (tsx compiles on start-up), slow on a loaded 2-core machine.
describe("durable runs across a crash", { timeout: 60_000 }, () => {
  it("keeps paused runs, finishes running ones, loses none and runs no step twice after SIGKILL", async () => {
    const first = await start();
    const api = apiClient(first.url);
    const running = await flowRun(api, SLOW_FLOW, 4);
    const paused = await flowRun(api, OTP_FLOW, 2);
    const pausedBefore = await Promise.all(
      paused.map((r) => api.waitForRun(r.id, (x) => x.status === "waiting_otp")),
    );
    await until(async () => {
      const now = await Promise.all(running.map((r) => api.get(`/api/runs/${r.id}`)));
      return now.every((a) => a.run.status === "running" && a.run.current_step_id === "nap");
    });
    await first.kill();
    expect(running.every((r) => shop.count(r.id, "start") === 1 && shop.count(r.id, "finish") === 0)).toBe(
      true,
    );

    const second = await start();
    const api2 = apiClient(second.url);
    for (const before of pausedBefore) {
      expect((await api2.get(`/api/runs/${before.id}`)).json).toEqual(before);
    }
    for (const r of running) {
      const done = await api2.waitForRun(r.id, (x) => x.status === "success", 10_000);
      expect(done.status).toBe("success");
      expect(shop.count(r.id, "start")).toBe(1);
      expect(shop.count(r.id, "finish")).toBe(1);
      const events = (await api2.get(`/api/runs/${r.id}/events`)).json as { items: Array<{ type: string }> };
      expect(events.items.map((e) => e.type)).toContain("lease_expired");
    }
    for (const p of paused) {
      expect((await api2.post(`/api/runs/${p.id}/resume`, { kind: "otp", otp_code: GOOD_OTP })).status).toBe(
        200,
      );
      await api2.waitForRun(p.id, (x) => x.status === "success");
      expect(shop.count(p.id, "pay")).toBe(1);
    }
    const all = (await api2.get("/api/runs?limit=200")).json as { items: Run[] };
    expect(all.items).toHaveLength(6);
    const metrics = await (await fetch(`${second.url}/api/metrics`)).text();
    expect(metrics).toMatch(/vetted_runs_lease_expirations_total [1-9]/);
  });

  it("expires a gate on time after a restart", async () => {
    const first = await start();
    const api = apiClient(first.url);
    const [run] = await flowRun(
      api,
      [{ id: "ok", type: "approval_gate", prompt: "OK?", timeout_seconds: 6 }],
      1,
    );
    if (run === undefined) throw new Error("no run");
    const waiting = await api.waitForRun(run.id, (x) => x.status === "waiting_user");
    await first.kill();
    const second = await start();
    // On a loaded machine the restart itself may outlast the gate: "on time" counts from the later of the two.
    const readyAt = Date.now();
    const api2 = apiClient(second.url);
    const failed = await api2.waitForRun(run.id, (x) => x.status === "failed", 12_000);
    expect(failed.reason).toBe("wait_timeout");
    const expiresAt = Date.parse(waiting.wait_context?.expires_at ?? "");
    const finishedAt = Date.parse(failed.finished_at ?? "");
    expect(finishedAt).toBeGreaterThanOrEqual(expiresAt);
    // Well under a lease or a sweep of minutes: the restarted server expires it at its first poll.
    expect(finishedAt - Math.max(expiresAt, readyAt)).toBeLessThan(3000);
    const events = (await api2.get(`/api/runs/${run.id}/events`)).json as { items: Array<{ type: string }> };
    expect(events.items.map((e) => e.type)).toContain("gate_expired");
  });

  it("shares the work of one database between two server processes without running a step twice", async () => {
    // Nobody is killed here: a long lease keeps a loaded machine's late heartbeat from looking like a dead worker
    // (which would, correctly, park an in-flight request for approval instead of finishing the run).
    const [a, b] = await Promise.all([start(10_000), start(10_000)]);
    if (a === undefined || b === undefined) throw new Error("no servers");
    const apiA = apiClient(a.url);
    const quick = SLOW_FLOW.map((s) => (s.type === "wait" ? { ...s, seconds: 0.2 } : s));
    const runs = await flowRun(apiA, quick, 12);
    for (const r of runs) {
      await apiA.waitForRun(r.id, (x) => x.status === "success", 10_000);
      expect(shop.count(r.id, "start")).toBe(1);
      expect(shop.count(r.id, "finish")).toBe(1);
    }
  });
});
