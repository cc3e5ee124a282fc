import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Run } from "@vetted/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type FakeShop, GOOD_OTP, startFakeShop } from "./tests/fake-shop.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

let dir: string;
let server: ServerProcess;
let shop: FakeShop;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-runs-api-"));
  shop = await startFakeShop();
  server = await startServerProcess({
    VETTED_DATA_DIR: dir,
    VETTED_PROTECTED_PROVIDER_DOMAINS: "127.0.0.2",
    VETTED_RUNS_LEASE_MS: "1000",
    VETTED_RUNS_POLL_MS: "50",
    VETTED_FRONTEND_URL: "http://127.0.0.1:5999",
  });
  api = apiClient(server.url);
}, 60_000); // tsx compiles the server on start-up: slow on a loaded 2-core machine

afterAll(async () => {
  await server?.kill();
  await shop?.close();
  rmSync(dir, { recursive: true, force: true });
});

function checkoutSteps(payUrl = "${params.shop}/pay") {
  return [
    {
      id: "cart",
      type: "http",
      method: "POST",
      url: "${params.shop}/cart",
      body: { sku: "${params.sku}" },
      expect: { status: [200] },
      extract: { cart_id: "$.id" },
    },
    { id: "code", type: "otp_gate", prompt: "Enter the code we texted you" },
    {
      id: "pay",
      type: "http",
      method: "POST",
      url: payUrl,
      body: { cart: "${vars.cart_id}", otp: "${gate.otp_code}" },
      expect: { status: [200] },
    },
  ];
}

async function createTemplate(steps: unknown[], policies: Record<string, unknown> = {}): Promise<string> {
  const flow = await api.post("/api/flows", { name: "checkout", steps });
  expect(flow.status).toBe(201);
  const flowId = (flow.json as { id: string }).id;
  const tpl = await api.post("/api/templates", {
    name: "checkout",
    flow_id: flowId,
    params_schema: [
      { key: "shop", type: "string", required: true },
      { key: "sku", type: "string", required: true, pattern: "^[A-Z][0-9]+$" },
      { key: "card", type: "secret" },
    ],
    defaults: { sku: "A1" },
    policies: { otp: { max_attempts: 3, timeout_seconds: 600 }, gate_timeout_seconds: 3600, ...policies },
  });
  expect(tpl.status).toBe(201);
  return (tpl.json as { id: string }).id;
}

async function startRun(templateId: string, params: Record<string, unknown> = {}): Promise<Run> {
  const res = await api.post("/api/runs", {
    template_id: templateId,
    params: { shop: shop.shopUrl, ...params },
  });
  expect(res.status).toBe(201);
  return res.run;
}

const isWaitingOtp = (r: Run) => r.status === "waiting_otp";

describe("a checkout run over HTTP", { timeout: 30_000 }, () => {
  it("goes cart → OTP gate → pay with the code → success", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    expect(run.status).toBe("queued");
    const waiting = await api.waitForRun(run.id, isWaitingOtp);
    expect(waiting.wait_context).toMatchObject({
      reason_code: "otp_required",
      at_step_id: "code",
      resume_from_step_id: "pay",
      allowed_resume_kinds: ["otp"],
      prompt: "Enter the code we texted you",
      provider_domain: null,
      gate_required_by_policy: false,
      otp_attempts: 0,
      max_otp_attempts: 3,
    });
    expect(Date.parse(waiting.wait_context?.expires_at ?? "")).toBeGreaterThan(Date.now() + 590_000);
    const resumed = await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: GOOD_OTP });
    expect(resumed.status).toBe(200);
    expect(["queued", "running", "success"]).toContain(resumed.run.status);
    const done = await api.waitForRun(run.id, (r) => r.status === "success");
    expect(done.vars).toMatchObject({ cart_id: expect.stringMatching(/^cart_/) });
    expect(shop.count(run.id, "cart")).toBe(1);
    expect(shop.count(run.id, "pay")).toBe(1);
  });

  it("loops back to waiting_otp on a wrong code, then succeeds with the right one", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    await api.waitForRun(run.id, isWaitingOtp);
    await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: "000000" });
    const again = await api.waitForRun(run.id, (r) => isWaitingOtp(r) && r.otp_attempts === 1);
    expect(again.wait_context).toMatchObject({
      reason_code: "otp_rejected",
      resume_from_step_id: "pay",
      otp_attempts: 1,
      max_otp_attempts: 3,
    });
    await api.post(`/api/runs/${run.id}/otp`, { otp_code: GOOD_OTP });
    await api.waitForRun(run.id, (r) => r.status === "success");
    expect(shop.count(run.id, "pay")).toBe(2);
    const events = await api.get(`/api/runs/${run.id}/events`);
    const text = JSON.stringify(events.json);
    expect(text).not.toContain(GOOD_OTP);
    expect(text).not.toContain("000000");
    expect(text).toContain("[redacted]");
  });

  it("fails with otp_attempts_exhausted after the last wrong code", async () => {
    const run = await startRun(await createTemplate(checkoutSteps(), { otp: { max_attempts: 2 } }));
    await api.waitForRun(run.id, isWaitingOtp);
    await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: "111111" });
    await api.waitForRun(run.id, (r) => r.otp_attempts === 1 && isWaitingOtp(r));
    await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: "222222" });
    const failed = await api.waitForRun(run.id, (r) => r.status === "failed");
    expect(failed).toMatchObject({ reason: "otp_attempts_exhausted", otp_attempts: 2, wait_context: null });
  });

  it("retries a failed run once from the step it stopped at, asking for the code again", async () => {
    const run = await startRun(await createTemplate(checkoutSteps(), { otp: { max_attempts: 1 } }));
    await api.waitForRun(run.id, isWaitingOtp);
    await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: "111111" });
    const failed = await api.waitForRun(run.id, (r) => r.status === "failed");
    const first = await api.post(`/api/runs/${run.id}/retry`, {});
    expect(first.status).toBe(201);
    const retry = first.json as Run;
    expect(retry.vars).toEqual(failed.vars);
    await api.waitForRun(retry.id, isWaitingOtp);
    await api.post(`/api/runs/${retry.id}/otp`, { otp_code: GOOD_OTP });
    await api.waitForRun(retry.id, (r) => r.status === "success");
    expect(shop.count(retry.id, "cart")).toBe(0);
    expect(shop.count(retry.id, "pay")).toBe(1);
    const again = await api.post(`/api/runs/${run.id}/retry`, {});
    expect(again).toMatchObject({ status: 200, json: { id: retry.id } });
    const events = (await api.get(`/api/runs/${retry.id}/events`)).json as {
      items: { type: string; data: unknown }[];
    };
    expect(events.items[0]).toMatchObject({ type: "run_created", data: { retry_of: run.id, by: "local" } });
    expect(await api.post(`/api/runs/${retry.id}/retry`, {})).toMatchObject({
      status: 409,
      code: "RUN_NOT_RETRYABLE",
    });
    expect(await api.post("/api/runs/run_nope/retry", {})).toMatchObject({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
    expect(await api.post(`/api/runs/${run.id}/retry`, { secrets: "no" })).toMatchObject({ status: 400 });
  });

  it("pauses before a protected payment provider and continues once approved", async () => {
    const steps = [
      { id: "charge", type: "http", method: "POST", url: `${shop.providerUrl}/charge`, body: { amount: 5 } },
    ];
    const run = await startRun(await createTemplate(steps));
    const waiting = await api.waitForRun(run.id, (r) => r.status === "waiting_user");
    expect(waiting.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      at_step_id: "charge",
      resume_from_step_id: "charge",
      gate_required_by_policy: true,
      provider_domain: "127.0.0.2",
      allowed_resume_kinds: ["approval"],
    });
    expect(shop.count(run.id, "charge")).toBe(0);
    expect((await api.post(`/api/runs/${run.id}/resume`, { kind: "approval", approved: true })).status).toBe(
      200,
    );
    await api.waitForRun(run.id, (r) => r.status === "success");
    expect(shop.count(run.id, "charge")).toBe(1);
  });

  it("cancels the run with approval_rejected when the provider step is rejected", async () => {
    const steps = [{ id: "charge", type: "http", method: "POST", url: `${shop.providerUrl}/charge` }];
    const run = await startRun(await createTemplate(steps));
    await api.waitForRun(run.id, (r) => r.status === "waiting_user");
    const res = await api.post(`/api/runs/${run.id}/resume`, { kind: "approval", approved: false });
    expect(res.status).toBe(200);
    expect(res.run).toMatchObject({ status: "cancelled", reason: "approval_rejected" });
    expect(shop.count(run.id, "charge")).toBe(0);
  });

  it("keeps an approval's comment and who answered in the gate_resolved event; refuses an over-long one", async () => {
    const flow = await api.post("/api/flows", {
      name: "gated",
      steps: [{ id: "ok", type: "approval_gate", prompt: "Ship it?" }],
    });
    const flowId = (flow.json as { id: string }).id;
    const start = async () => (await api.post("/api/runs", { flow_id: flowId })).run;
    const run = await start();
    await api.waitForRun(run.id, (r) => r.status === "waiting_user");
    const tooLong = await api.post(`/api/runs/${run.id}/resume`, {
      kind: "approval",
      approved: true,
      comment: "x".repeat(2001),
    });
    expect(tooLong.status).toBe(400);
    expect((await api.get(`/api/runs/${run.id}`)).run.status).toBe("waiting_user");
    const ok = await api.post(`/api/runs/${run.id}/resume`, {
      kind: "approval",
      approved: true,
      comment: "  Looks right to me  ",
    });
    expect(ok.status).toBe(200);
    const resolvedOf = async (id: string) => {
      const page = (await api.get(`/api/runs/${id}/events`)).json as {
        items: { type: string; data: Record<string, unknown> }[];
      };
      return page.items.find((e) => e.type === "gate_resolved")?.data;
    };
    expect(await resolvedOf(run.id)).toMatchObject({
      kind: "approval",
      approved: true,
      comment: "Looks right to me",
      answered_by: "local",
    });
    const rejected = await start();
    await api.waitForRun(rejected.id, (r) => r.status === "waiting_user");
    await api.post(`/api/runs/${rejected.id}/resume`, { kind: "approval", approved: false, comment: "No" });
    expect(await resolvedOf(rejected.id)).toMatchObject({ approved: false, comment: "No" });
    const blank = await start();
    await api.waitForRun(blank.id, (r) => r.status === "waiting_user");
    await api.post(`/api/runs/${blank.id}/resume`, { kind: "approval", approved: true, comment: "   " });
    expect(await resolvedOf(blank.id)).not.toHaveProperty("comment");
  });

  it("lists runs by flow and by creation time; a bad instant is a 400", async () => {
    const flow = await api.post("/api/flows", {
      name: "quick",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    const flowId = (flow.json as { id: string }).id;
    const first = (await api.post("/api/runs", { flow_id: flowId })).run;
    await new Promise((r) => setTimeout(r, 20));
    const between = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const second = (await api.post("/api/runs", { flow_id: flowId })).run;
    const ids = async (query: string) =>
      ((await api.get(`/api/runs?${query}`)).json as { items: Run[] }).items.map((r) => r.id);
    expect(await ids(`flow_id=${flowId}`)).toEqual([second.id, first.id]);
    expect(await ids(`flow_id=${flowId}&created_after=${encodeURIComponent(between)}`)).toEqual([second.id]);
    expect(await ids(`flow_id=${flowId}&created_before=${encodeURIComponent(between)}`)).toEqual([first.id]);
    expect(await ids("flow_id=flow_none")).toEqual([]);
    const bad = await api.get("/api/runs?created_after=yesterday");
    expect(bad.status).toBe(400);
    expect(bad.code).toBe("VALIDATION_FAILED");
  });
});

describe("resume semantics", { timeout: 30_000 }, () => {
  it("lets exactly one of 50 concurrent resumes win", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    await api.waitForRun(run.id, isWaitingOtp);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: GOOD_OTP }),
      ),
    );
    expect(answers.filter((a) => a.status >= 200 && a.status < 300)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.code === "RUN_NOT_WAITING")).toHaveLength(49);
    await api.waitForRun(run.id, (r) => r.status === "success");
    expect(shop.count(run.id, "pay")).toBe(1);
  });

  it("answers a retried Idempotency-Key with the first answer and resumes once", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    await api.waitForRun(run.id, isWaitingOtp);
    const headers = { "Idempotency-Key": `resume-${run.id}` };
    const first = await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: GOOD_OTP }, headers);
    const second = await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: GOOD_OTP }, headers);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    const other = await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: "999999" }, headers);
    expect(other).toMatchObject({ status: 422, code: "IDEMPOTENCY_KEY_REUSED" });
    await api.waitForRun(run.id, (r) => r.status === "success");
    const events = (await api.get(`/api/runs/${run.id}/events`)).json as { items: Array<{ type: string }> };
    expect(events.items.filter((e) => e.type === "gate_resolved")).toHaveLength(1);
  });

  it("creates one run for a retried POST /api/runs with the same Idempotency-Key", async () => {
    const templateId = await createTemplate(checkoutSteps());
    const body = { template_id: templateId, params: { shop: shop.shopUrl } };
    const headers = { "Idempotency-Key": `create-${templateId}` };
    const a = await api.post("/api/runs", body, headers);
    const b = await api.post("/api/runs", body, headers);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.run.id).toBe(a.run.id);
    const listed = (await api.get(`/api/runs?template_id=${templateId}`)).json as { items: Run[] };
    expect(listed.items).toHaveLength(1);
  });

  it("refuses bad resumes with clear 4xx answers", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    const waiting = await api.waitForRun(run.id, isWaitingOtp);
    const resume = (body: unknown) => api.post(`/api/runs/${run.id}/resume`, body);
    expect(await resume({ kind: "magic" })).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect(await resume({ kind: "otp" })).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect(await resume({ kind: "approval", approved: true })).toMatchObject({
      status: 422,
      code: "RESUME_KIND_NOT_ALLOWED",
    });
    expect(
      await resume({ kind: "otp", otp_code: GOOD_OTP, expected_version: waiting.version - 1 }),
    ).toMatchObject({
      status: 409,
      code: "VERSION_CONFLICT",
    });
    expect(await api.post("/api/runs/run_nope/resume", { kind: "otp", otp_code: "1" })).toMatchObject({
      status: 404,
      code: "RUN_NOT_FOUND",
    });
    expect(await api.post(`/api/runs/${run.id}/otp`, {})).toMatchObject({
      status: 422,
      code: "OTP_UNAVAILABLE",
    });
    await api.post(`/api/runs/${run.id}/cancel`);
    expect(await resume({ kind: "otp", otp_code: GOOD_OTP })).toMatchObject({
      status: 409,
      code: "RUN_NOT_WAITING",
    });
    expect(await api.post(`/api/runs/${run.id}/cancel`)).toMatchObject({ status: 409, code: "RUN_FINISHED" });
  });

  it("checks an input gate's schema and hands the text to the next step", async () => {
    const steps = [
      { id: "ask", type: "input_gate", prompt: "Your postcode?", input_schema: { pattern: "^[0-9]{5}$" } },
      {
        id: "send",
        type: "http",
        method: "POST",
        url: "${params.shop}/address",
        body: { zip: "${gate.input_text}" },
      },
    ];
    const run = await startRun(await createTemplate(steps));
    await api.waitForRun(run.id, (r) => r.status === "waiting_user");
    expect(await api.post(`/api/runs/${run.id}/resume`, { kind: "input", input_text: "abc" })).toMatchObject({
      status: 422,
      code: "INPUT_INVALID",
    });
    expect(
      (await api.post(`/api/runs/${run.id}/resume`, { kind: "input", input_text: "12345" })).status,
    ).toBe(200);
    await api.waitForRun(run.id, (r) => r.status === "success");
  });
});

describe("flows, templates and runs", { timeout: 30_000 }, () => {
  it("bumps a flow's version on PATCH and refuses a stale expected_version", async () => {
    const flow = await api.post("/api/flows", {
      name: "f",
      steps: [{ id: "a", type: "set", vars: { x: 1 } }],
    });
    const id = (flow.json as { id: string }).id;
    const patched = await api.patch(`/api/flows/${id}`, { name: "g", expected_version: 1 });
    expect(patched).toMatchObject({ status: 200, json: { name: "g", version: 2 } });
    expect(await api.patch(`/api/flows/${id}`, { name: "h", expected_version: 1 })).toMatchObject({
      status: 409,
      code: "VERSION_CONFLICT",
    });
    expect(
      await api.post("/api/flows", {
        name: "dup",
        steps: [
          { id: "a", type: "set", vars: {} },
          { id: "a", type: "set", vars: {} },
        ],
      }),
    ).toMatchObject({ status: 400, code: "VALIDATION_FAILED" });
    expect((await api.get("/api/flows?limit=1")).json).toMatchObject({
      items: [expect.any(Object)],
      next_cursor: expect.any(String),
    });
    expect(await api.get("/api/flows/flow_nope")).toMatchObject({ status: 404, code: "FLOW_NOT_FOUND" });
  });

  it("validates params and never returns or logs a secret", async () => {
    const templateId = await createTemplate([
      { id: "remember", type: "set", vars: { card_copy: "${secrets.card}" } },
      {
        id: "use",
        type: "http",
        method: "POST",
        url: "${params.shop}/card",
        body: { card: "${secrets.card}" },
      },
    ]);
    expect(await api.post("/api/runs", { template_id: templateId, params: {} })).toMatchObject({
      status: 422,
      code: "PARAMS_INVALID",
    });
    expect(
      await api.post("/api/runs", { template_id: templateId, params: { shop: "x", sku: "lower" } }),
    ).toMatchObject({
      status: 422,
      code: "PARAMS_INVALID",
    });
    const run = await startRun(templateId, { card: "4242-SECRET" });
    await api.waitForRun(run.id, (r) => r.status === "success");
    const everything = [
      await api.get(`/api/runs/${run.id}`),
      await api.get(`/api/runs/${run.id}/events`),
      await api.get(`/api/runs?template_id=${templateId}`),
      await api.get(`/api/templates/${templateId}`),
    ];
    for (const answer of everything) expect(JSON.stringify(answer.json)).not.toContain("4242-SECRET");
    expect(server.stderr()).not.toContain("4242-SECRET");
  });

  it("aborts a running step when the run is cancelled", async () => {
    const run = await startRun(
      await createTemplate([{ id: "slow", type: "http", method: "POST", url: "${params.shop}/slow" }]),
    );
    await api.waitForRun(run.id, (r) => r.status === "running" && shop.count(r.id, "slow") === 1);
    const started = Date.now();
    const cancelled = await api.post(`/api/runs/${run.id}/cancel`);
    expect(cancelled).toMatchObject({ status: 200, run: { status: "cancelled", reason: "cancelled" } });
    await new Promise((r) => setTimeout(r, 200));
    expect((await api.get(`/api/runs/${run.id}`)).run.status).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("streams events as SSE from Last-Event-ID and ends after the run ends", async () => {
    const run = await startRun(await createTemplate([{ id: "a", type: "set", vars: { x: 1 } }]));
    await api.waitForRun(run.id, (r) => r.status === "success");
    const res = await fetch(`${server.url}/api/runs/${run.id}/events/stream`, {
      headers: { "Last-Event-ID": "1" },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids[0]).toBe(2);
    expect(text).toContain("event: status_changed");
    expect(text).toContain('"to":"success"');
  });

  it("ends at once, sending nothing, when a client resumes an ended run's stream after its last event", async () => {
    const run = await startRun(await createTemplate([{ id: "a", type: "set", vars: { x: 1 } }]));
    await api.waitForRun(run.id, (r) => r.status === "success");
    const all = await (await fetch(`${server.url}/api/runs/${run.id}/events/stream`)).text();
    const last = Math.max(...[...all.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])));
    const res = await fetch(`${server.url}/api/runs/${run.id}/events/stream`, {
      headers: { "Last-Event-ID": String(last) },
      signal: AbortSignal.timeout(5_000),
    });
    expect(await res.text()).not.toMatch(/^id: /m);
  });
});

describe("runs lists", { timeout: 30_000 }, () => {
  it("pages with next_cursor and answers 400 CURSOR_INVALID to a malformed or foreign cursor on every list", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()), { sku: "L1" });
    const flows = await api.get("/api/flows?limit=1");
    const flowCursor = (flows.json as { next_cursor: string | null }).next_cursor;
    expect(typeof flowCursor).toBe("string");
    const lists = ["/api/flows", "/api/templates", "/api/runs", `/api/runs/${run.id}/events`];
    for (const list of lists) {
      for (const cursor of ["garbage", "1e309", flowCursor]) {
        if (list === "/api/flows" && cursor === flowCursor) continue;
        const res = await api.get(`${list}?cursor=${cursor}`);
        expect(res.status, `${list}?cursor=${cursor}`).toBe(400);
        expect(res.json).toMatchObject({ error: { code: "CURSOR_INVALID" } });
      }
    }
    const first = await api.get(`/api/runs/${run.id}/events?limit=1`);
    const next = (first.json as { next_cursor: string | null }).next_cursor;
    expect(typeof next).toBe("string");
    const second = await api.get(`/api/runs/${run.id}/events?limit=1&cursor=${next}`);
    expect(second.status).toBe(200);
    expect((second.json as { items: Array<{ id: number }> }).items.map((e) => e.id)).toEqual([2]);
  });
});

describe("live event streams", { timeout: 30_000 }, () => {
  it("streams a waiting run's events as they happen and ends when it succeeds", async () => {
    const run = await startRun(await createTemplate(checkoutSteps()));
    await api.waitForRun(run.id, isWaitingOtp);
    const res = await fetch(`${server.url}/api/runs/${run.id}/events/stream`);
    const reader = res.body?.getReader();
    if (reader === undefined) throw new Error("no body");
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) return;
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil('"to":"waiting_otp"');
    expect(text).not.toContain("gate_resolved");
    await api.post(`/api/runs/${run.id}/resume`, { kind: "otp", otp_code: GOOD_OTP });
    await readUntil('"to":"success"');
    expect(text).toContain("event: gate_resolved");
    const { done } = await reader.read();
    expect(done).toBe(true);
  });
});

describe("server extras", { timeout: 30_000 }, () => {
  it("serves Prometheus metrics with HTTP counts by route and runs by status", async () => {
    await api.get("/api/runs");
    const res = await fetch(`${server.url}/api/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/vetted_http_requests_total\{method="GET",route="\/api\/runs",status="200"\} \d+/);
    expect(text).toContain("vetted_http_request_duration_seconds_bucket");
    expect(text).toMatch(/vetted_runs\{status="success"\} [1-9]/);
    expect(text).toContain("vetted_runs_gate_wait_seconds_count");
    expect(text).toContain("vetted_runs_resume_latency_seconds_count");
    expect(text).toContain("vetted_runs_timeouts_total");
    expect(text).toContain("vetted_runs_lease_expirations_total");
  });

  it("redirects /register to the frontend and keeps it out of the OpenAPI document", async () => {
    const res = await api.get("/register");
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("http://127.0.0.1:5999/register");
    const doc = (await api.get("/api/openapi.json")).json as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain("/register");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/flows",
        "/api/flows/{flow_id}",
        "/api/templates",
        "/api/templates/{template_id}",
        "/api/runs",
        "/api/runs/{run_id}",
        "/api/runs/{run_id}/resume",
        "/api/runs/{run_id}/otp",
        "/api/runs/{run_id}/cancel",
        "/api/runs/{run_id}/events",
        "/api/runs/{run_id}/events/stream",
        "/api/metrics",
      ]),
    );
  });

  it("logged no warning or error while serving everything above", () => {
    expect(server.stderr()).not.toMatch(/"level":"(warn|error)"/);
  });
});
