import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Run } from "@vetted/runs";
import { createLocalEmbedder } from "@vetted/runs/embeddings";
import { createProofEngine, GENERATED_LABEL } from "@vetted/runs/proof";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "./app.js";
import { type FakeShop, startFakeShop } from "./tests/fake-shop.js";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type App = Pick<TestApp, "app">;

async function call(t: App, method: string, path: string, body?: unknown) {
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & { error?: { code: string } },
  };
}

async function setup(runsOptions = {}): Promise<{ t: TestApp; shop: FakeShop }> {
  const t = await createTestApp({}, runsOptions);
  cleanups.push(t.close);
  const shop = await startFakeShop();
  cleanups.push(shop.close);
  return { t, shop };
}

async function flow(t: TestApp, name: string, steps: unknown[]): Promise<string> {
  const res = await call(t, "POST", "/api/flows", { name, steps });
  expect(res.status).toBe(201);
  return String(res.body.id);
}

async function runOf(t: TestApp, flowId: string, params: Record<string, unknown>): Promise<string> {
  const res = await call(t, "POST", "/api/runs", { flow_id: flowId, params });
  expect(res.status).toBe(201);
  return String(res.body.id);
}

async function until(t: TestApp, id: string, done: (r: Run) => boolean): Promise<Run> {
  const end = Date.now() + 30_000;
  for (;;) {
    const run = (await call(t, "GET", `/api/runs/${id}`)).body as unknown as Run;
    if (done(run)) return run;
    if (Date.now() > end) throw new Error(`run ${id} stayed ${run.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ended = (r: Run) => r.status === "success" || r.status === "failed" || r.status === "cancelled";

/** A checkout over the fake shop: a cart, a pause of `seconds`, and a check of the sku. */
function checkout(seconds: number, sku: string) {
  return [
    {
      id: "cart",
      type: "http",
      method: "POST",
      url: "${params.shop}/cart",
      body: { sku },
      extract: { sku: "$.sku" },
    },
    { id: "pause", type: "wait", seconds },
    { id: "sku_ok", type: "assert", value: "${vars.sku}", equals: "sku_1", message: "wrong sku in the cart" },
  ];
}

describe("/api/proof campaigns over real runs", () => {
  it("reports counts, fails a strict campaign with codes, diffs two campaigns", async () => {
    const { t, shop } = await setup();
    const good = await flow(t, "good", checkout(0, "sku_1"));
    const bad = await flow(t, "bad", checkout(0, "sku_2"));
    const gated = await flow(t, "gated", [
      { id: "ok", type: "approval_gate", prompt: "Ship it?" },
      { id: "cart", type: "http", method: "POST", url: "${params.shop}/cart", body: {} },
    ]);
    const params = { shop: shop.shopUrl };
    const ids = [await runOf(t, good, params), await runOf(t, bad, params), await runOf(t, gated, params)];
    const [g, b, a] = ids as [string, string, string];
    await until(t, a, (r) => r.status === "waiting_user");
    expect(
      (await call(t, "POST", `/api/runs/${a}/resume`, { kind: "approval", approved: true })).status,
    ).toBe(200);
    for (const id of ids) await until(t, id, ended);

    const standard = await call(t, "POST", "/api/proof/campaigns", {
      name: "release 1",
      run_ids: ids,
      policy: "standard",
    });
    expect(standard.status).toBe(201);
    const report = standard.body.report as Record<string, unknown>;
    expect(report).toMatchObject({
      run_count: 3,
      valid_runs: 2,
      runs_by_status: { success: 2, failed: 1 },
      gates: { opened: 1, passed: 1, expired: 0, pass_rate: 1 },
      steps_failed_by_reason: { assertion_failed: 1 },
      status: "passed",
    });
    expect(report.median_duration_ms).toEqual(expect.any(Number));

    const strict = await call(t, "POST", "/api/proof/campaigns", {
      name: "release 1 strict",
      run_ids: ids,
      policy: "strict",
    });
    expect(strict.body.report).toMatchObject({
      status: "failed",
      violations: [{ code: "RUN_FAILED", run_id: b }],
    });
    const clean = await call(t, "POST", "/api/proof/campaigns", {
      name: "clean",
      run_ids: [g],
      policy: "strict",
    });
    expect(clean.body.report).toMatchObject({ status: "passed", violations: [] });

    const standardId = (standard.body.campaign as { id: string }).id;
    const cleanId = (clean.body.campaign as { id: string }).id;
    const got = await call(t, "GET", `/api/proof/campaigns/${standardId}`);
    expect(got.body).toEqual(standard.body);
    const list = await call(t, "GET", "/api/proof/campaigns?limit=2");
    expect((list.body.items as unknown[]).length).toBe(2);
    const next = await call(t, "GET", `/api/proof/campaigns?cursor=${String(list.body.next_cursor)}`);
    expect((next.body.items as Array<{ id: string }>).map((c) => c.id)).toEqual([standardId]);

    const diff = await call(t, "POST", `/api/proof/campaigns/${standardId}/diff`, {
      other_campaign_id: cleanId,
    });
    expect(diff.body).toMatchObject({
      run_count: { this: 3, other: 1, delta: 2 },
      valid_runs: { this: 2, other: 1, delta: 1 },
      gate_pass_rate: { this: 1, other: null, delta: null },
    });

    expect(
      (await call(t, "POST", "/api/proof/campaigns", { name: "x", run_ids: ["run_nope"], policy: "strict" }))
        .body,
    ).toMatchObject({ error: { code: "REQUEST_INVALID", details: { unknown_run_ids: ["run_nope"] } } });
    expect(
      (await call(t, "POST", "/api/proof/campaigns", { name: "x", run_ids: [], policy: "strict" })).status,
    ).toBe(400);
    expect(
      (await call(t, "POST", "/api/proof/campaigns", { name: "x", run_ids: [g, g], policy: "strict" }))
        .status,
    ).toBe(422);
    expect((await call(t, "GET", "/api/proof/campaigns/camp_nope")).body.error?.code).toBe(
      "CAMPAIGN_NOT_FOUND",
    );
    expect((await call(t, "GET", "/api/proof/campaigns?cursor=abc")).body.error?.code).toBe("CURSOR_INVALID");
  }, 90_000);

  it("compares two runs where lcp newly fails and a11y got fixed, and says so", async () => {
    const { t } = await setup();
    const audit = await flow(t, "audit", [
      { id: "a11y", type: "assert", value: "${params.a11y}", equals: "ok", message: "a11y violations" },
      { id: "lcp", type: "assert", value: "${params.lcp}", equals: "ok", message: "LCP over budget" },
    ]);
    const before = await runOf(t, audit, { a11y: "violations", lcp: "ok" });
    const after = await runOf(t, audit, { a11y: "ok", lcp: "slow" });
    for (const id of [before, after]) expect((await until(t, id, ended)).status).toBe("failed");

    const cmp = await call(t, "POST", "/api/proof/runs/compare", {
      left_run_id: before,
      right_run_id: after,
    });
    expect(cmp.status).toBe(200);
    expect(cmp.body.checks).toEqual({
      added: [],
      removed: [],
      failing_on_both: [],
      newly_failing: ["lcp"],
      newly_fixed: ["a11y"],
    });
    const summary = String(cmp.body.summary);
    expect(summary).toContain("Newly failing: lcp.");
    expect(summary).toContain("Newly fixed: a11y.");
    expect(summary).not.toContain("The checks are unchanged.");
  }, 60_000);

  it("compares a slower run, and briefs a failed run blocked and a clean one review-ready", async () => {
    const { t, shop } = await setup();
    const fast = await runOf(t, await flow(t, "fast", checkout(0, "sku_1")), { shop: shop.shopUrl });
    const slowFlow = await flow(t, "slow", [
      ...checkout(1.2, "sku_1"),
      { id: "extra", type: "assert", value: 1, equals: 1 },
    ]);
    const slow = await runOf(t, slowFlow, { shop: shop.shopUrl });
    const failed = await runOf(t, await flow(t, "bad", checkout(0, "sku_2")), { shop: shop.shopUrl });
    for (const id of [fast, slow, failed]) await until(t, id, ended);

    const cmp = await call(t, "POST", "/api/proof/runs/compare", { left_run_id: fast, right_run_id: slow });
    expect(cmp.status).toBe(200);
    const pause = (cmp.body.steps as Array<{ step_id: string; delta_ms: number }>).find(
      (s) => s.step_id === "pause",
    );
    expect(pause?.delta_ms).toBeGreaterThanOrEqual(1000);
    expect(cmp.body.checks).toEqual({
      added: ["extra"],
      removed: [],
      failing_on_both: [],
      newly_failing: [],
      newly_fixed: [],
    });
    expect(String(cmp.body.summary)).toContain("step pause");
    const both = await call(t, "POST", "/api/proof/runs/compare", {
      left_run_id: failed,
      right_run_id: failed,
    });
    expect(both.body.checks).toMatchObject({ failing_on_both: ["sku_ok"] });
    expect(
      (await call(t, "POST", "/api/proof/runs/compare", { left_run_id: fast, right_run_id: "run_x" })).status,
    ).toBe(404);

    const blocked = await call(t, "GET", `/api/proof/runs/${failed}/release-brief`);
    expect(blocked.body).toMatchObject({
      recommendation: "blocked",
      observed: { status: "failed", steps_failed: 1 },
    });
    expect((blocked.body.reasons as string[]).join(" ")).toContain("sku_ok");
    const ready = await call(t, "GET", `/api/proof/runs/${fast}/release-brief`);
    expect(ready.body).toMatchObject({ recommendation: "review-ready", baseline_run_id: null });
    const against = await call(t, "GET", `/api/proof/runs/${slow}/release-brief?baseline_run_id=${fast}`);
    expect(against.body).toMatchObject({ recommendation: "investigate", baseline_run_id: fast });
    expect((against.body.reasons as string[]).join(" ")).toContain("Step pause took");
    expect((await call(t, "GET", `/api/proof/runs/${fast}/release-brief?baseline_run_id=run_x`)).status).toBe(
      404,
    );

    const review = await call(t, "GET", `/api/proof/runs/${failed}/review`);
    expect(review.body).toMatchObject({
      narrative: null,
      findings: [{ kind: "failed_assertion", severity: "high", step_id: "sku_ok" }],
    });
  }, 90_000);
});

describe("/api/proof similar failures", () => {
  it("ranks the run failing with the same error first, saying why", async () => {
    const embedder = createLocalEmbedder({ cacheDir: join(tmpdir(), "vetted-embeddings-cache") });
    const { t, shop } = await setup({ embedder });
    const declined = await flow(t, "declined", [
      {
        id: "pay",
        type: "http",
        method: "POST",
        url: "${params.shop}/pay",
        body: {},
        expect: { status: [200] },
      },
    ]);
    const mountain = await flow(t, "mountain", [
      {
        id: "summit",
        type: "assert",
        value: "trail",
        equals: "peak",
        message: "the hike did not reach the mountain summit",
      },
    ]);
    const params = { shop: shop.shopUrl };
    const first = await runOf(t, declined, params);
    const other = await runOf(t, mountain, params);
    const same = await runOf(t, declined, params);
    for (const id of [first, other, same]) await until(t, id, (r) => r.status === "failed");
    const end = Date.now() + 120_000;
    let items: Array<{ run_id: string; why_matched: string; shared_reason_codes: string[] }> = [];
    while (items.length < 2 && Date.now() < end) {
      items = (await call(t, "GET", `/api/proof/runs/${first}/similar-failures?limit=5`)).body
        .items as typeof items;
      if (items.length < 2) await new Promise((r) => setTimeout(r, 200));
    }
    expect(items.map((x) => x.run_id)).toEqual([same, other]);
    expect(items[0]?.shared_reason_codes).toEqual(["step_failed"]);
    expect(items[0]?.why_matched).toMatch(
      /^Both runs failed with step_failed, and its failure .* reads the same as/,
    );
    expect((await call(t, "GET", `/api/proof/runs/${first}/similar-failures?limit=21`)).status).toBe(400);
    expect((await call(t, "GET", "/api/proof/runs/run_x/similar-failures")).status).toBe(404);
  }, 180_000);
});

/** An OpenAI-compatible chat server on 127.0.0.1: `ok` narrates, `fail` answers 500, `slow` never in time. */
async function chatServer(mode: "ok" | "fail" | "slow") {
  const prompts: string[] = [];
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = JSON.parse(text) as { messages: Array<{ content: string }> };
    prompts.push(body.messages.at(-1)?.content ?? "");
    if (mode === "fail") {
      res.statusCode = 500;
      res.end('{"error":"boom"}');
    } else if (mode === "slow") {
      const timer = setTimeout(() => res.end("{}"), 3000);
      res.on("close", () => clearTimeout(timer));
    } else {
      res.setHeader("Content-Type", "application/json");
      res.end(
        JSON.stringify({ choices: [{ message: { role: "assistant", content: "The sku check failed." } }] }),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, prompts };
}

function proofApp(t: TestApp, extra: Partial<Parameters<typeof createProofEngine>[0]>): App {
  const proof = createProofEngine({
    db: t.deps.database.db,
    similarFailures: (id, limit) => t.deps.runs.similarFailures(id, limit),
    ...extra,
  });
  return { app: createApp({ ...t.deps, proof }) };
}

describe("/api/proof review narrative and feasibility", () => {
  it("adds a generated narrative from a local model; a failing or slow model leaves the findings standing", async () => {
    const { t, shop } = await setup();
    const failed = await runOf(t, await flow(t, "bad", checkout(0, "sku_2")), { shop: shop.shopUrl });
    await until(t, failed, ended);
    const ok = await chatServer("ok");
    const withModel = proofApp(t, { reviewModel: { url: ok.url, model: "reviewer-1", apiKey: "k" } });
    const review = await call(withModel, "GET", `/api/proof/runs/${failed}/review`);
    expect(review.body.narrative).toEqual({
      status: "generated",
      label: GENERATED_LABEL,
      model: "reviewer-1",
      text: "The sku check failed.",
    });
    expect(ok.prompts[0]).toContain("Check sku_ok failed");
    for (const [mode, code, status] of [
      ["fail", "UPSTREAM_FAILED", 500],
      ["slow", "UPSTREAM_TIMEOUT", null],
    ] as const) {
      const model = await chatServer(mode);
      const app = proofApp(t, { reviewModel: { url: model.url, model: "m", timeoutMs: 300 } });
      const res = await call(app, "GET", `/api/proof/runs/${failed}/review`);
      expect(res.status).toBe(200);
      expect(res.body.narrative).toMatchObject({ status: "unavailable", code, upstream_status: status });
      expect(res.body.findings).toEqual(review.body.findings);
    }
  }, 60_000);

  it("names the OTP source, protected-provider approval and a missing browser a template needs", async () => {
    const { t, shop } = await setup();
    const flowId = await flow(t, "pay", [
      { id: "home", type: "navigate", url: `${shop.shopUrl}/` },
      { id: "code", type: "otp_gate" },
      {
        id: "pay",
        type: "http",
        method: "POST",
        url: `${shop.providerUrl}/pay`,
        body: { otp: "${gate.otp_code}" },
      },
    ]);
    const tpl = await call(t, "POST", "/api/templates", { name: "pay", flow_id: flowId });
    const id = String(tpl.body.id);
    const app = proofApp(t, { protectedDomains: ["127.0.0.2"], browserAvailable: () => false });
    const res = await call(
      app,
      "GET",
      `/api/proof/templates/${id}/feasibility?target=${encodeURIComponent(shop.shopUrl)}`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      supported: false,
      blocked_reasons: [{ code: "BROWSER_UNAVAILABLE" }],
      required_capabilities: ["browser", "outbound_http", "otp_source", "protected_provider_approval"],
    });
    const hints = (res.body.migration_hints as string[]).join(" ");
    expect(hints).toContain("protected provider 127.0.0.2");
    expect(hints).toContain('"inbound_sms"');
    const denied = proofApp(t, { browserAvailable: () => true, outbound: { deny: ["127.0.0.1"] } });
    const blocked = await call(
      denied,
      "GET",
      `/api/proof/templates/${id}/feasibility?target=${encodeURIComponent(shop.shopUrl)}`,
    );
    expect(blocked.body).toMatchObject({
      supported: false,
      blocked_reasons: [{ code: "TARGET_DENIED" }, { code: "STEP_HOST_DENIED" }],
    });
    const elsewhere = await call(
      app,
      "GET",
      `/api/proof/templates/${id}/feasibility?target=http://127.0.0.3:9/`,
    );
    expect((elsewhere.body.migration_hints as string[]).join(" ")).toContain("Step home calls 127.0.0.1");
    expect((await call(app, "GET", `/api/proof/templates/${id}/feasibility?target=ftp://x`)).status).toBe(
      422,
    );
    expect(
      (await call(app, "GET", "/api/proof/templates/tpl_x/feasibility?target=http://127.0.0.1/")).status,
    ).toBe(404);
  }, 60_000);
});
