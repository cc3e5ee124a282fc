import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RecoverPlan, Run } from "@vetted/runs";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type FakeShop, startFakeShop } from "./tests/fake-shop.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

/* Recovery plans and the wait-context guidance over HTTP, on real server processes: a run waiting at each
 * kind of gate, a failed and a cancelled run, and the 409 for runs with nothing to recover. */

let dir: string;
let server: ServerProcess;
let api: ReturnType<typeof apiClient>;
let shop: FakeShop;
let site: TestSite;
const extra: ServerProcess[] = [];

function env(): Record<string, string> {
  return {
    VETTED_DATA_DIR: dir,
    VETTED_PROTECTED_PROVIDER_DOMAINS: site.payHost,
    VETTED_RUNS_POLL_MS: "50",
    VETTED_RUNS_LEASE_MS: "1500",
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vetted-recover-"));
  shop = await startFakeShop();
  site = await startTestSite();
  server = await startServerProcess(env(), 60_000);
  api = apiClient(server.url);
}, 90_000);

afterAll(async () => {
  for (const s of extra) await s.kill();
  await server?.kill();
  await shop?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function runOf(steps: unknown[]): Promise<Run> {
  const flow = await api.post("/api/flows", { name: "recover", steps });
  expect(flow.status, JSON.stringify(flow.json)).toBe(201);
  const run = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id });
  expect(run.status, JSON.stringify(run.json)).toBe(201);
  return run.run;
}

async function settled(runId: string, timeoutMs = 60_000): Promise<Run> {
  return api.waitForRun(runId, (r) => r.status !== "queued" && r.status !== "running", timeoutMs);
}

async function planOf(runId: string, client = api): Promise<RecoverPlan> {
  const res = await client.get(`/api/runs/${runId}/recover-plan`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as RecoverPlan;
}

const SET = { id: "prepare", type: "set", vars: { a: 1 } };

describe("wait_context guidance and recovery plans of waiting runs", { timeout: 120_000 }, () => {
  it("an OTP gate: after_step_id, a title, enter_otp, a resume hint; the plan submits the code", async () => {
    const run = await settled(
      (await runOf([SET, { id: "code", type: "otp_gate" }, { id: "done", type: "set", vars: { b: 2 } }])).id,
    );
    expect(run.status).toBe("waiting_otp");
    expect(run.wait_context).toMatchObject({
      after_step_id: "prepare",
      screen_title: "One-time code needed at step code",
      required_actions: [{ kind: "enter_otp", label: "Enter the one-time code" }],
      evidence_refs: [{ kind: "step_events", step_id: "prepare" }],
    });
    expect(run.wait_context?.resume_hint).toMatch(/kind "otp".*continues at step done/);
    const plan = await planOf(run.id);
    expect(plan).toMatchObject({
      reason_code: "otp_required",
      primary_action: {
        action_id: "submit_otp",
        step_id: "code",
        requires_input: true,
        safety_level: "safe_suggestion",
      },
    });
    expect(plan.actions.map((a) => a.action_id)).toEqual(["submit_otp", "inspect", "replay"]);
  });

  it("an approval gate: approve; the plan continues the manual gate once confirmed", async () => {
    const run = await settled((await runOf([{ id: "ok", type: "approval_gate", prompt: "Ship it?" }])).id);
    expect(run.wait_context).toMatchObject({
      after_step_id: null,
      screen_title: "Approval needed at step ok",
      required_actions: [{ kind: "approve" }],
      evidence_refs: [],
    });
    expect(run.wait_context?.resume_hint).toMatch(/run then ends successfully/);
    const plan = await planOf(run.id);
    expect(plan.primary_action).toMatchObject({
      action_id: "continue_manual_gate",
      requires_input: false,
      safety_level: "confirm_before_apply",
    });
  });

  it("an input gate: enter_input with the prompt; the plan submits the input", async () => {
    const run = await settled(
      (await runOf([SET, { id: "ask", type: "input_gate", prompt: "Order reference?" }])).id,
    );
    expect(run.status).toBe("waiting_user");
    expect(run.wait_context).toMatchObject({
      after_step_id: "prepare",
      screen_title: "Input needed at step ask",
      required_actions: [{ kind: "enter_input" }],
    });
    expect(run.wait_context?.required_actions?.[0]?.description).toContain("Order reference?");
    const plan = await planOf(run.id);
    expect(plan).toMatchObject({
      reason_code: "input_required",
      primary_action: { action_id: "submit_input", requires_input: true },
    });
  });

  it("a protected payment provider in the browser: manual-only approval, the page's evidence referenced", async () => {
    const run = await settled(
      (
        await runOf([
          { id: "shop", type: "navigate", url: `${site.url}/login` },
          { id: "to_pay", type: "navigate", url: `${site.payUrl}/pay` },
        ])
      ).id,
      90_000,
    );
    expect(run.status, run.error ?? "").toBe("waiting_user");
    expect(run.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      after_step_id: "shop",
      screen_title: `Payment provider step (${site.payHost}) at step to_pay`,
      required_actions: [{ kind: "approve" }],
      evidence_refs: [{ kind: "browser_evidence", step_id: "shop" }],
    });
    const plan = await planOf(run.id);
    expect(plan.primary_action).toMatchObject({
      action_id: "continue_manual_gate",
      safety_level: "manual_only",
    });
    expect(site.payments()).toBe(0);
  });

  it("a request whose outcome is unknown after a SIGKILL: inspect first, manual only", async () => {
    // Its own database: the suite's server must not claim the run (only the killed one sends the request).
    const own = { ...env(), VETTED_DATA_DIR: mkdtempSync(join(tmpdir(), "vetted-recover-kill-")) };
    const second = await startServerProcess(own, 60_000);
    extra.push(second);
    const api2 = apiClient(second.url);
    const flow = await api2.post("/api/flows", {
      name: "slow",
      steps: [{ id: "charge", type: "http", method: "POST", url: `${shop.shopUrl}/slow`, body: {} }],
    });
    const created = await api2.post("/api/runs", { flow_id: (flow.json as { id: string }).id });
    const deadline = Date.now() + 30_000;
    while (!shop.paths.includes("/slow") && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 25));
    await second.kill();
    // A new server on that database re-claims the run once the killed process's lease expires.
    const third = await startServerProcess(own, 60_000);
    extra.push(third);
    const api3 = apiClient(third.url);
    const run = await api3.waitForRun(created.run.id, (r) => r.status === "waiting_user", 60_000);
    expect(run.wait_context).toMatchObject({
      reason_code: "step_outcome_unknown",
      required_actions: [{ kind: "check_far_side" }, { kind: "approve" }],
      evidence_refs: [{ kind: "step_events", step_id: "charge" }],
    });
    const plan = await planOf(run.id, api3);
    expect(plan.primary_action).toMatchObject({
      action_id: "inspect",
      step_id: "charge",
      safety_level: "manual_only",
    });
    expect(plan.actions.map((a) => a.action_id)).toEqual(["inspect", "continue_manual_gate", "replay"]);
  });
});

describe("recovery plans of ended and live runs", { timeout: 60_000 }, () => {
  it("a failed run: inspect the failing step, run again from it, or replay", async () => {
    const run = await settled((await runOf([SET, { id: "check", type: "assert", value: 1, equals: 2 }])).id);
    expect(run.status).toBe("failed");
    const plan = await planOf(run.id);
    expect(plan.reason_code).toBe("assertion_failed");
    expect(plan.headline).toContain("step check");
    expect(plan.actions.map((a) => [a.action_id, a.step_id])).toEqual([
      ["inspect", "check"],
      ["resume_from_step", "check"],
      ["replay", undefined],
    ]);
  });

  it("a cancelled run: replay first", async () => {
    const waiting = await settled((await runOf([{ id: "ok", type: "approval_gate", prompt: "Go?" }])).id);
    expect((await api.post(`/api/runs/${waiting.id}/cancel`)).status).toBe(200);
    const plan = await planOf(waiting.id);
    expect(plan).toMatchObject({
      status: "cancelled",
      primary_action: { action_id: "replay", safety_level: "confirm_before_apply" },
    });
  });

  it("answers 409 RUN_NOT_RECOVERABLE for a running or succeeded run, 404 for no run", async () => {
    const running = await runOf([{ id: "nap", type: "wait", seconds: 20 }]);
    await api.waitForRun(running.id, (r) => r.status === "running", 30_000);
    const live = await api.get(`/api/runs/${running.id}/recover-plan`);
    expect(live.status).toBe(409);
    expect(live.code).toBe("RUN_NOT_RECOVERABLE");
    await api.post(`/api/runs/${running.id}/cancel`);
    const ok = await settled((await runOf([SET])).id);
    expect(ok.status).toBe("success");
    const done = await api.get(`/api/runs/${ok.id}/recover-plan`);
    expect(done.status).toBe(409);
    expect(done.code).toBe("RUN_NOT_RECOVERABLE");
    expect((await api.get("/api/runs/run_nope/recover-plan")).code).toBe("RUN_NOT_FOUND");
  });
});
