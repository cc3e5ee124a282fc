import { createHmac } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ReceivedHook, type Receiver, startReceiver } from "@vetted/runs/testing";
import type { WebhookDelivery } from "@vetted/runs/webhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

const SECRET = "whsec_server_test_0123456789";
const OTP_FLOW = { name: "otp", steps: [{ id: "code", type: "otp_gate", prompt: "Code?" }] };
const RETRY_BASE_MS = 400;

function env(dir: string): Record<string, string> {
  return {
    // The data directory apart from the folders organized (fileorg never plans its own data).
    VETTED_DATA_DIR: join(dir, "data"),
    VETTED_ALLOWED_ROOTS: dir,
    VETTED_RUNS_POLL_MS: "50",
    VETTED_WEBHOOK_POLL_MS: "50",
    VETTED_WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
    VETTED_WEBHOOK_TIMEOUT_MS: "2000",
    VETTED_PROTECTED_PROVIDER_DOMAINS: "stripe.com,pay.vetted-test.invalid",
  };
}

async function until<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in time; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Checks a delivery's signature the way a receiver would, with node:crypto. */
function expectSigned(got: ReceivedHook | undefined, secret: string): Record<string, unknown> {
  if (got === undefined) throw new Error("nothing received");
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got.headers["x-vetted-signature"]));
  expect(match).not.toBeNull();
  const [, ts = "", v1] = match ?? [];
  expect(Math.abs(Date.now() / 1000 - Number(ts))).toBeLessThan(60);
  expect(v1).toBe(createHmac("sha256", secret).update(`${ts}.${got.body}`).digest("hex"));
  const body = JSON.parse(got.body) as Record<string, unknown>;
  expect(got.headers["x-vetted-event"]).toBe(body.type);
  expect(String(got.headers["x-vetted-delivery"])).toMatch(/^whd_/);
  return body;
}

function ofType(receiver: Receiver, type: string): ReceivedHook[] {
  return receiver.received.filter((r) => r.headers["x-vetted-event"] === type);
}

describe("signed webhooks over HTTP", { timeout: 90_000 }, () => {
  let dir: string;
  let server: ServerProcess;
  let receiver: Receiver;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vetted-webhooks-"));
    receiver = await startReceiver({ status: (path) => (path.startsWith("/fail") ? 500 : 200) });
    server = await startServerProcess(env(dir), 60_000);
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function subscribe(path: string, events: string[]): Promise<string> {
    const res = await api.post("/api/webhooks", { url: `${receiver.url}${path}`, events, secret: SECRET });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.json)).not.toContain(SECRET);
    return (res.json as { id: string }).id;
  }

  async function otpRun(): Promise<string> {
    const flow = await api.post("/api/flows", OTP_FLOW);
    const run = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id, params: {} });
    expect(run.status).toBe(201);
    return run.run.id;
  }

  it("tells a receiver, signed, that a run waits at an OTP gate, then that it finished after resume", async () => {
    const hookId = await subscribe("/runs", ["run.waiting", "run.finished"]);
    const runId = await otpRun();
    await api.waitForRun(runId, (r) => r.status === "waiting_otp");
    const waiting = await until(
      () => ofType(receiver, "run.waiting").filter((r) => r.body.includes(runId)),
      (l) => l.length > 0,
    );
    const body = expectSigned(waiting[0], SECRET);
    expect(body).toMatchObject({ type: "run.waiting", data: { run_id: runId, status: "waiting_otp" } });
    const resumed = await api.post(`/api/runs/${runId}/resume`, { kind: "otp", otp_code: "123456" });
    expect(resumed.status).toBe(200);
    const finished = await until(
      () => ofType(receiver, "run.finished").filter((r) => r.body.includes(runId)),
      (l) => l.length > 0,
    );
    expect(expectSigned(finished[0], SECRET)).toMatchObject({ data: { run_id: runId, status: "success" } });
    // The receiver answers before the dispatcher records the outcome.
    const first = await until(
      async () =>
        (await api.get(`/api/webhooks/${hookId}/deliveries?limit=1`)).json as {
          items: WebhookDelivery[];
          next_cursor: string | null;
        },
      (page) => page.items[0]?.status === "delivered",
    );
    expect(first.items).toHaveLength(1);
    expect(first.items[0]).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200 });
    expect(first.next_cursor).not.toBeNull();
    const next = await api.get(`/api/webhooks/${hookId}/deliveries?cursor=${first.next_cursor}`);
    expect((next.json as { items: WebhookDelivery[] }).items.map((d) => d.event_type)).toEqual([
      "run.waiting",
    ]);
    expect((await api.get(`/api/webhooks/${hookId}/deliveries?cursor=nope`)).code).toBe("CURSOR_INVALID");
    expect((await api.call("DELETE", `/api/webhooks/${hookId}`)).status).toBe(204);
  });

  it("sends job.finished, signed, when a fileorg job ends", async () => {
    await subscribe("/jobs", ["job.finished"]);
    const src = join(dir, "src");
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, "note.txt"), "hello");
    const job = await api.post("/api/jobs/analyze", { source_dir: src });
    expect(job.status).toBe(202);
    const jobId = (job.json as { job_id: string }).job_id;
    const got = await until(
      () => ofType(receiver, "job.finished").filter((r) => r.body.includes(jobId)),
      (l) => l.length > 0,
    );
    expect(expectSigned(got[0], SECRET)).toMatchObject({
      type: "job.finished",
      data: { job_id: jobId, kind: "analyze", status: "succeeded" },
    });
  });

  it("sends task.finished, signed, when an automation task ends, and diagnostics count the task", async () => {
    await subscribe("/tasks", ["task.finished"]);
    const src = join(dir, "analyze-me");
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, "a.txt"), "a");
    const task = await api.post("/api/automation/run", {
      command_id: "analyze-folder",
      params: { source_dir: src },
    });
    expect(task.status).toBe(202);
    const taskId = (task.json as { task_id: string }).task_id;
    const got = await until(
      () => ofType(receiver, "task.finished").filter((r) => r.body.includes(taskId)),
      (l) => l.length > 0,
      30_000,
    );
    expect(expectSigned(got[0], SECRET)).toMatchObject({
      type: "task.finished",
      data: { task_id: taskId, command_id: "analyze-folder", status: "success" },
    });
    const diagnostics = await api.get("/api/health/diagnostics");
    expect(diagnostics.status).toBe(200);
    const counts = (diagnostics.json as { tasks?: unknown }).tasks;
    expect(counts).toMatchObject({ by_status: { success: 1 } });
  });

  it("retries a failing receiver with growing delays, and redelivers on request", async () => {
    const hookId = await subscribe("/fail", ["run.waiting"]);
    const runId = await otpRun();
    const attempts = await until(
      () => receiver.received.filter((r) => r.path === "/fail" && r.body.includes(runId)),
      (l) => l.length >= 4,
      30_000,
    );
    const gaps = attempts.slice(1, 4).map((r, i) => r.at - (attempts[i]?.at ?? 0));
    // Equal jitter: attempt n waits between half and all of base × 2^(n-1).
    for (const [i, gap] of gaps.entries()) {
      expect(gap).toBeGreaterThanOrEqual((RETRY_BASE_MS * 2 ** i) / 2 - 20);
    }
    expect(gaps[2]).toBeGreaterThan(gaps[0] ?? 0);
    expect(new Set(attempts.map((r) => r.headers["x-vetted-delivery"])).size).toBe(1);
    // The receiver has answered the fourth attempt; the server records its outcome just after.
    const [failing] = await until(
      async () =>
        ((await api.get(`/api/webhooks/${hookId}/deliveries`)).json as { items: WebhookDelivery[] }).items,
      (items) => (items[0]?.attempts ?? 0) >= 4,
    );
    expect(failing).toMatchObject({ status: "pending", last_status_code: 500 });
    expect(failing?.attempts).toBeGreaterThanOrEqual(4);
    expect(failing?.attempt_log.length).toBe(failing?.attempts);

    receiver.answer(() => 200);
    const again = await api.post(`/api/webhooks/${hookId}/deliveries/${failing?.id}/redeliver`);
    expect(again.status).toBe(202);
    const redelivery = again.json as WebhookDelivery;
    expect(redelivery).toMatchObject({
      redelivery_of: failing?.id,
      event_id: failing?.event_id,
      status: "pending",
    });
    const got = await until(
      () => receiver.received.filter((r) => r.headers["x-vetted-delivery"] === redelivery.id),
      (l) => l.length > 0,
    );
    expect(expectSigned(got[0], SECRET)).toMatchObject({ id: failing?.event_id, data: { run_id: runId } });
    const missing = await api.post(`/api/webhooks/${hookId}/deliveries/whd_nope/redeliver`);
    expect([missing.status, missing.code]).toEqual([404, "WEBHOOK_DELIVERY_NOT_FOUND"]);
    receiver.answer((path) => (path.startsWith("/fail") ? 500 : 200));
  });

  it("sends a signed webhook.test to one webhook alone on request, listed among its deliveries", async () => {
    const hookId = await subscribe("/test-me", ["run.finished"]);
    const other = await subscribe("/test-other", ["run.finished"]);
    const sent = await api.post(`/api/webhooks/${hookId}/test`);
    expect(sent.status).toBe(202);
    const delivery = sent.json as WebhookDelivery;
    expect(delivery).toMatchObject({ webhook_id: hookId, event_type: "webhook.test", status: "pending" });
    const got = await until(
      () => receiver.received.filter((r) => r.headers["x-vetted-delivery"] === delivery.id),
      (l) => l.length > 0,
    );
    expect(got[0]?.path).toBe("/test-me");
    expect(expectSigned(got[0], SECRET)).toMatchObject({
      id: delivery.event_id,
      type: "webhook.test",
      data: { webhook_id: hookId },
    });
    const [listed] = await until(
      async () =>
        ((await api.get(`/api/webhooks/${hookId}/deliveries`)).json as { items: WebhookDelivery[] }).items,
      (items) => items[0]?.status === "delivered",
    );
    expect(listed).toMatchObject({ id: delivery.id, event_type: "webhook.test", last_status_code: 200 });
    const others = await api.get(`/api/webhooks/${other}/deliveries`);
    expect((others.json as { items: WebhookDelivery[] }).items).toEqual([]);
    expect(receiver.received.filter((r) => r.path === "/test-other")).toEqual([]);
    const missing = await api.post("/api/webhooks/whk_nope/test");
    expect([missing.status, missing.code]).toEqual([404, "WEBHOOK_NOT_FOUND"]);
    for (const id of [hookId, other])
      expect((await api.call("DELETE", `/api/webhooks/${id}`)).status).toBe(204);
  });

  it("refuses metadata addresses, payment providers, its own port on any loopback, credentials, bad events and unknown webhooks with stable codes", async () => {
    const metadata = await api.post("/api/webhooks", {
      url: "http://169.254.169.254/latest/meta-data",
      events: ["run.finished"],
      secret: SECRET,
    });
    expect([metadata.status, metadata.code]).toEqual([422, "WEBHOOK_URL_DENIED"]);
    const self = await api.post("/api/webhooks", {
      url: `${server.url}/api/health`,
      events: ["run.finished"],
      secret: SECRET,
    });
    expect([self.status, self.code]).toEqual([422, "WEBHOOK_URL_DENIED"]);
    const port = new URL(server.url).port;
    for (const [url, says] of [
      ["https://api.stripe.com/v1/webhook_endpoints", "is the protected payment provider stripe.com"],
      ["https://pay.vetted-test.invalid/in", "is the protected payment provider pay.vetted-test.invalid"],
      [`http://[::1]:${port}/api/flows`, "the server's own address and port"],
      [`http://localhost:${port}/api/health`, "the server's own address and port"],
      [`http://user:hunter2pass@${new URL(receiver.url).host}/in`, "carries credentials"],
    ] as const) {
      const refused = await api.post("/api/webhooks", { url, events: ["run.finished"], secret: SECRET });
      expect([refused.status, refused.code], url).toEqual([422, "WEBHOOK_URL_DENIED"]);
      expect(JSON.stringify(refused.json)).toContain(says);
      expect(JSON.stringify(refused.json)).not.toContain("hunter2pass");
    }
    const badEvent = await api.post("/api/webhooks", {
      url: receiver.url,
      events: ["run.exploded"],
      secret: SECRET,
    });
    expect([badEvent.status, badEvent.code]).toEqual([400, "VALIDATION_FAILED"]);
    const shortSecret = await api.post("/api/webhooks", {
      url: receiver.url,
      events: ["run.finished"],
      secret: "x",
    });
    expect(shortSecret.status).toBe(400);
    const gone = await api.call("DELETE", "/api/webhooks/whk_nope");
    expect([gone.status, gone.code]).toEqual([404, "WEBHOOK_NOT_FOUND"]);
    const list = await api.get("/api/webhooks");
    expect(JSON.stringify(list.json)).not.toContain(SECRET);
  });
});

describe("webhook delivery across a crash", { timeout: 120_000 }, () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("delivers a run.waiting queued before a SIGKILL once the server is back", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vetted-webhooks-crash-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    // The receiver is down: find a free port, then close it.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();
    // The first server's dispatcher looks once at start-up, then not for a minute: the kill comes between
    // the transition (the outbox row is written with it) and any delivery attempt.
    const first = await startServerProcess({ ...env(dir), VETTED_WEBHOOK_POLL_MS: "60000" }, 60_000);
    cleanups.push(() => first.kill());
    const api = apiClient(first.url);
    const hook = await api.post("/api/webhooks", {
      url: `http://127.0.0.1:${port}/down`,
      events: ["run.waiting"],
      secret: SECRET,
    });
    const hookId = (hook.json as { id: string }).id;
    const flow = await api.post("/api/flows", OTP_FLOW);
    const run = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id, params: {} });
    await api.waitForRun(run.run.id, (r) => r.status === "waiting_otp");
    const queued = await api.get(`/api/webhooks/${hookId}/deliveries`);
    expect((queued.json as { items: WebhookDelivery[] }).items).toMatchObject([
      { status: "pending", attempts: 0 },
    ]);
    await first.kill();

    const receiver = await startReceiver({ port });
    cleanups.push(() => receiver.close());
    const second = await startServerProcess(env(dir), 60_000);
    cleanups.push(() => second.kill());
    const got = await until(
      () => receiver.received,
      (l) => l.length > 0,
      30_000,
    );
    expect(expectSigned(got[0], SECRET)).toMatchObject({ type: "run.waiting", data: { run_id: run.run.id } });
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received).toHaveLength(1);
    const deliveries = await apiClient(second.url).get(`/api/webhooks/${hookId}/deliveries`);
    expect((deliveries.json as { items: WebhookDelivery[] }).items).toMatchObject([{ status: "delivered" }]);
  });
});
