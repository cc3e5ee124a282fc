import { startTestSite, type TestSite } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let site: TestSite;
let t: TestApp;

beforeAll(async () => {
  site = await startTestSite();
  t = await createTestApp({}, { protectedDomains: [site.payHost] });
}, 60_000);

afterAll(async () => {
  await t.close();
  await site.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const type = res.headers.get("content-type") ?? "";
  const json = type.includes("json") ? ((await res.json()) as Record<string, unknown>) : {};
  return { status: res.status, json, res };
}

describe("/api/sessions", { timeout: 90_000 }, () => {
  it("records a person's sign-in, finishes it, and promotes the draft to a flow, and binds a run to the session's storage state", async () => {
    const started = await call("POST", "/api/sessions/start", {
      start_url: `${site.url}/login`,
      mode: "manual",
    });
    expect(started.status).toBe(201);
    const id = String(started.json.id);
    expect(id).toMatch(/^ss_/);

    const { page } = await t.deps.sessions.livePage(id);
    await page.getByLabel("Email").click();
    await page.getByLabel("Email").pressSequentially(site.email);
    await page.getByLabel("Password").fill(site.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${site.url}/account`);

    expect((await call("GET", `/api/sessions/${id}`)).json).toMatchObject({
      status: "active",
      current_url: `${site.url}/account`,
    });
    const shot = await call("GET", `/api/sessions/${id}/screenshot`);
    expect(shot.res.headers.get("content-type")).toBe("image/png");
    const finished = await call("POST", `/api/sessions/${id}/finish`);
    expect(finished).toMatchObject({ status: 200, json: { status: "finished" } });
    expect((finished.json.artifacts_index as Array<{ kind: string }>).map((a) => a.kind).sort()).toEqual([
      "events",
      "har",
      "screenshot",
    ]);
    const draft = await call("GET", `/api/sessions/${id}/flow-draft`);
    expect(draft.json).toMatchObject({ final: true, secrets: ["password"] });

    const flow = await call("POST", "/api/flows", { session_id: id, name: "recorded sign-in" });
    expect(flow).toMatchObject({ status: 201, json: { name: "recorded sign-in" } });
    expect((flow.json.steps as Array<{ type: string }>).map((s) => s.type)).toEqual([
      "navigate",
      "type",
      "type",
      "click",
    ]);

    const check = await call("POST", "/api/flows", {
      name: "account",
      steps: [
        { id: "who", type: "navigate", url: `${site.url}/account` },
        { id: "is", type: "assert", url: "/account" },
      ],
    });
    const run = await call("POST", "/api/runs", { flow_id: check.json.id, session_id: id });
    expect(run.status).toBe(201);
    const deadline = Date.now() + 30_000;
    let status = "";
    while (Date.now() < deadline) {
      status = String((await call("GET", `/api/runs/${String(run.json.id)}`)).json.status);
      if (status === "success" || status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe("success");
  });

  it("answers bad requests with 4xx envelopes", async () => {
    const file = await call("POST", "/api/sessions/start", { start_url: "file:///etc/passwd" });
    expect(file).toMatchObject({ status: 400, json: { error: { code: "VALIDATION_FAILED" } } });
    expect(await call("GET", "/api/sessions/ss_nope")).toMatchObject({
      status: 404,
      json: { error: { code: "SESSION_NOT_FOUND" } },
    });
    expect(await call("POST", "/api/flows", { session_id: "ss_nope" })).toMatchObject({ status: 404 });
    expect(await call("POST", "/api/flows", { session_id: "ss_x", steps: [] })).toMatchObject({
      status: 400,
    });
    expect(await call("POST", "/api/flows", { name: "no steps" })).toMatchObject({ status: 400 });
    expect(await call("GET", "/api/sessions?cursor=nope!")).toMatchObject({
      status: 400,
      json: { error: { code: "CURSOR_INVALID" } },
    });
    const unreachable = await call("POST", "/api/sessions/start", { start_url: "http://127.0.0.1:9/" });
    expect(unreachable).toMatchObject({ status: 422, json: { error: { code: "START_URL_UNREACHABLE" } } });
  });
});

describe("without a browser", () => {
  it("answers the session and computer-use routes with 503 BROWSER_UNAVAILABLE and the install command", async () => {
    const bare = await createTestApp(
      {},
      {},
      { executablePath: undefined, unavailableReason: "VETTED_CHROMIUM_PATH=/nonexistent" },
    );
    try {
      const res = await bare.app.request("/api/sessions/start", {
        method: "POST",
        headers: { ...LOCAL, "Content-Type": "application/json" },
        body: JSON.stringify({ start_url: "http://127.0.0.1:1/" }),
      });
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("BROWSER_UNAVAILABLE");
      expect(body.error.message).toContain("apt-get install -y chromium");
      const cus = await bare.app.request("/api/computer-use/sessions", {
        method: "POST",
        headers: { ...LOCAL, "Content-Type": "application/json" },
        body: JSON.stringify({ instruction: "scroll down" }),
      });
      const { id } = (await cus.json()) as { id: string };
      const preview = await bare.app.request(`/api/computer-use/sessions/${id}/preview`, {
        method: "POST",
        headers: { ...LOCAL, "Content-Type": "application/json" },
        body: "{}",
      });
      expect(preview.status).toBe(503);
    } finally {
      await bare.close();
    }
  });

  it("answers a session start 503 BROWSER_BUSY with Retry-After when every context stays held, and 201 once one frees", async () => {
    const busy = await createTestApp(
      {},
      { protectedDomains: [site.payHost] },
      { maxContexts: 1, holding: { session: { waitMs: 300 } } },
    );
    try {
      const held = await busy.deps.browser.acquire("run_holder");
      const start = () =>
        busy.app.request("/api/sessions/start", {
          method: "POST",
          headers: { ...LOCAL, "Content-Type": "application/json" },
          body: JSON.stringify({ start_url: `${site.url}/login`, mode: "manual" }),
        });
      const asked = Date.now();
      const res = await start();
      expect(Date.now() - asked).toBeLessThan(5_000);
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe("BROWSER_BUSY");
      await held.release();
      expect((await start()).status).toBe(201);
    } finally {
      await busy.close();
    }
  });
});
