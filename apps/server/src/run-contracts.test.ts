import type { Run } from "@vetted/runs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Loopback, serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let t: TestApp;
let server: Loopback;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function until(id: string, done: (r: Run) => boolean): Promise<Run> {
  const end = Date.now() + 20_000;
  for (;;) {
    const run = (await call("GET", `/api/runs/${id}`)).json as unknown as Run;
    if (done(run)) return run;
    if (Date.now() > end) throw new Error(`run ${id} stayed ${run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function flowOf(steps: unknown[]): Promise<string> {
  const res = await call("POST", "/api/flows", { name: "f", steps });
  expect(res.status).toBe(201);
  return String(res.json.id);
}

beforeAll(async () => {
  t = await createTestApp();
  server = await serveOnLoopback((request) => t.app.fetch(request));
});

afterAll(async () => {
  await server?.close();
  await t?.close();
});

describe("POST /api/runs/{run_id}/cancel?expected_version=N", () => {
  it("answers 409 VERSION_CONFLICT for a stale version and leaves the run waiting", async () => {
    const flowId = await flowOf([{ id: "ok", type: "approval_gate" }]);
    const created = await call("POST", "/api/runs", { flow_id: flowId });
    const waiting = await until(String(created.json.id), (r) => r.status === "waiting_user");
    const stale = await call(
      "POST",
      `/api/runs/${waiting.id}/cancel?expected_version=${waiting.version - 1}`,
    );
    expect(stale).toMatchObject({
      status: 409,
      json: { error: { code: "VERSION_CONFLICT", details: { version: waiting.version } } },
    });
    expect((await call("GET", `/api/runs/${waiting.id}`)).json).toMatchObject({
      status: "waiting_user",
      version: waiting.version,
    });
    expect(await call("POST", `/api/runs/${waiting.id}/cancel?expected_version=two`)).toMatchObject({
      status: 400,
      json: { error: { code: "VALIDATION_FAILED" } },
    });
    const current = await call("POST", `/api/runs/${waiting.id}/cancel?expected_version=${waiting.version}`);
    expect(current).toMatchObject({ status: 200, json: { status: "cancelled" } });
  });

  it("declares expected_version as a query parameter in the OpenAPI document", async () => {
    const doc = (await call("GET", "/api/openapi.json")).json as {
      paths: Record<string, { post?: { parameters?: Array<{ name: string; in: string }> } }>;
    };
    const params = doc.paths["/api/runs/{run_id}/cancel"]?.post?.parameters ?? [];
    expect(params).toContainEqual(expect.objectContaining({ name: "expected_version", in: "query" }));
  });
});

describe("a template whose policy requires a one-time code", () => {
  it("is created waiting_otp before its first step, and runs once the code is given", async () => {
    const flowId = await flowOf([{ id: "keep", type: "set", vars: { code: "${gate.otp_code}" } }]);
    const tpl = await call("POST", "/api/templates", {
      name: "needs a code",
      flow_id: flowId,
      policies: { otp: { required: true } },
    });
    expect(tpl.status).toBe(201);
    const created = await call("POST", "/api/runs", { template_id: tpl.json.id });
    expect(created).toMatchObject({
      status: 201,
      json: { status: "waiting_otp", wait_context: { reason_code: "otp_required", at_step_id: "keep" } },
    });
    const id = String(created.json.id);
    const resumed = await call("POST", `/api/runs/${id}/resume`, { kind: "otp", otp_code: "424242" });
    expect(resumed.status).toBe(200);
    const done = await until(id, (r) => r.status === "success" || r.status === "failed");
    expect(done.status).toBe("success");
    expect(Object.keys(done.vars)).toEqual(["code"]);
  });
});
