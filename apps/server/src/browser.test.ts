import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Run, StepEvidence } from "@vetted/runs";
import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "./tests/api-client.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let site: TestSite;
const dirs: string[] = [];
const servers: ServerProcess[] = [];
const apps: TestApp[] = [];

beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.close();
});
afterEach(async ({ task }) => {
  // A failed test shows what its servers said (a crash, a browser that would not start).
  if (task.result?.state === "fail")
    for (const s of servers) console.error(`server ${s.url} stderr:\n${s.stderr().slice(-4000)}`);
  for (const s of servers.splice(0)) await s.kill();
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "vetted-browser-"));
  dirs.push(dir);
  return dir;
}

const sel = (kind: string, value: string, name?: string) => ({
  selectors: [{ kind, value, ...(name === undefined ? {} : { name }) }],
});

/** Login, the OTP gate, the code typed into the page, and the checkout that needs the login cookie. */
function loginOtpSteps(): unknown[] {
  return [
    { id: "open", type: "navigate", url: "${params.site}/login" },
    { id: "email", type: "type", target: sel("label", "Email"), value: "${params.email}" },
    { id: "password", type: "type", target: sel("label", "Password"), value: "${secrets.password}" },
    { id: "sign_in", type: "click", target: sel("role", "button", "Sign in") },
    { id: "to_otp", type: "click", target: sel("text", "Go to checkout") },
    { id: "code", type: "otp_gate", prompt: "Enter the code" },
    { id: "type_code", type: "type", target: sel("label", "One-time code"), value: "${gate.otp_code}" },
    { id: "verify", type: "click", target: sel("role", "button", "Verify") },
    { id: "checkout", type: "assert", url: "/checkout", text: "Order ord_1" },
  ];
}

async function loginTemplate(api: ReturnType<typeof apiClient>, steps: unknown[]): Promise<string> {
  const flow = await api.post("/api/flows", { name: "shop", steps });
  expect(flow.status, JSON.stringify(flow.json)).toBe(201);
  const tpl = await api.post("/api/templates", {
    name: "shop",
    flow_id: (flow.json as { id: string }).id,
    params_schema: [
      { key: "site", type: "string", required: true },
      { key: "email", type: "string", required: true },
      { key: "password", type: "secret", required: true },
    ],
  });
  expect(tpl.status, JSON.stringify(tpl.json)).toBe(201);
  return (tpl.json as { id: string }).id;
}

const params = () => ({ site: site.url, email: site.email, password: site.password });

describe("the browser through the server", { timeout: 120_000 }, () => {
  it("keeps the logged-in page across a SIGKILL while paused at the OTP gate", async () => {
    const dataDir = tempDir();
    const env = {
      VETTED_DATA_DIR: dataDir,
      VETTED_PROTECTED_PROVIDER_DOMAINS: site.payHost,
      VETTED_RUNS_POLL_MS: "50",
    };
    const first = await startServerProcess(env, 60_000);
    servers.push(first);
    const api1 = apiClient(first.url);
    const health = await api1.get("/api/health");
    expect(health.json).toMatchObject({ browser: { available: true } });
    const templateId = await loginTemplate(api1, loginOtpSteps());
    const created = await api1.post("/api/runs", { template_id: templateId, params: params() });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const paused = await api1.waitForRun(
      created.run.id,
      (r) => r.status !== "queued" && r.status !== "running",
      60_000,
    );
    expect(paused.status, paused.error ?? "").toBe("waiting_otp");
    await first.kill();

    const second = await startServerProcess(env, 60_000);
    servers.push(second);
    const api2 = apiClient(second.url);
    const resumed = await api2.post(`/api/runs/${created.run.id}/resume`, {
      kind: "otp",
      otp_code: site.otpCode,
    });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    const done = await api2.waitForRun(
      created.run.id,
      (r: Run) => r.status !== "queued" && r.status !== "running",
      60_000,
    );
    // The checkout answers only a logged-in browser: the session cookie came back with the page.
    expect(done.status, done.error ?? "").toBe("success");
    const evidence = await api2.get(`/api/runs/${created.run.id}/steps/type_code/evidence`);
    expect(evidence.json).toMatchObject({
      items: [{ step_id: "type_code", detail: { url_before: `${site.url}/otp` } }],
    });
  });

  it("serves a run's evidence and its screenshots", async () => {
    // A 1 s lease: a loaded machine's event-loop stalls outlast it, and this process must not re-claim
    // the run it is still executing (that closed the page mid-step before the runs engine guarded it).
    const t = await createTestApp({}, { protectedDomains: [site.payHost] });
    apps.push(t);
    const req = (path: string, body?: unknown) =>
      t.app.request(path, {
        method: body === undefined ? "GET" : "POST",
        headers: { ...LOCAL, "Content-Type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const json = async <T>(res: Response | Promise<Response>) => (await (await res).json()) as T;
    const steps = [
      { id: "open", type: "navigate", url: `${site.url}/login` },
      { id: "shot", type: "screenshot", name: "login_page" },
    ];
    const flow = await json<{ id: string }>(req("/api/flows", { name: "look", steps }));
    const run = await json<Run>(req("/api/runs", { flow_id: flow.id }));
    let latest = run;
    for (let i = 0; i < 600 && (latest.status === "queued" || latest.status === "running"); i++) {
      await new Promise((r) => setTimeout(r, 50));
      latest = await json<Run>(req(`/api/runs/${run.id}`));
    }
    expect(latest.status, JSON.stringify(latest.error)).toBe("success");
    type Page = { items: StepEvidence[]; next_cursor: string | null };
    const page = await json<Page>(req(`/api/runs/${run.id}/evidence`));
    expect(page.items.map((e) => e.step_id)).toEqual(["open", "shot"]);
    expect(page.next_cursor).toBeNull();
    const shot = page.items[1];
    expect(shot?.screenshots.map((s) => s.name)).toEqual(["before", "login_page", "after"]);
    const image = await req(`/api/runs/${run.id}/evidence/${shot?.id}/screenshots/login_page`);
    expect(image.status).toBe(200);
    expect(image.headers.get("Content-Type")).toBe("image/jpeg");
    expect((await json<Page>(req(`/api/runs/${run.id}/steps/open/evidence`))).items).toHaveLength(1);
    const unknown = await req(`/api/runs/${run.id}/steps/nope/evidence`);
    expect(unknown.status).toBe(404);
    expect((await json<{ error: { code: string } }>(unknown)).error.code).toBe("STEP_NOT_FOUND");
    const missing = await req(`/api/runs/${run.id}/evidence/${shot?.id}/screenshots/nope`);
    expect(missing.status).toBe(404);
  });

  it("answers 503 BROWSER_UNAVAILABLE for browser runs when there is no browser, and still starts", async () => {
    const server = await startServerProcess(
      { VETTED_DATA_DIR: tempDir(), VETTED_CHROMIUM_PATH: "/nonexistent" },
      40_000,
    );
    servers.push(server);
    const api = apiClient(server.url);
    const health = await api.get("/api/health");
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: "ok",
      browser: { available: false, running: false, reason: expect.stringContaining("/nonexistent") },
    });
    const flow = await api.post("/api/flows", {
      name: "b",
      steps: [{ id: "open", type: "navigate", url: `${site.url}/login` }],
    });
    expect(flow.status).toBe(201);
    const res = await api.post("/api/runs", { flow_id: (flow.json as { id: string }).id });
    expect(res.status).toBe(503);
    expect(res.code).toBe("BROWSER_UNAVAILABLE");
    expect((res.json as { error: { message: string } }).error.message).toContain(
      "apt-get install -y chromium",
    );
  });
});
