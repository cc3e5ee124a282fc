import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createReconstructionEngine } from "@vetted/runs/reconstruction";
import { type ApiShop, startApiShop } from "@vetted/runs/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

const here = dirname(fileURLToPath(import.meta.url));
let shop: ApiShop;
let t: TestApp;
let sessionId = "";

beforeAll(async () => {
  shop = await startApiShop();
  t = await createTestApp({}, { leaseMs: 15_000 });
}, 60_000);

afterAll(async () => {
  await t.close();
  await shop.close();
});

async function call(method: string, path: string, body?: unknown) {
  const res = await t.app.request(path, {
    method,
    headers: { ...LOCAL, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return {
    status: res.status,
    json: (await res.json()) as Record<string, unknown> & { error?: { code: string } },
  };
}

type AnyStep = { id: string; type: string; url?: string; body?: unknown; extract?: Record<string, string> };

async function waitForStatus(runId: string, wanted: string[]): Promise<string> {
  const deadline = Date.now() + 60_000;
  let status = "";
  while (Date.now() < deadline) {
    status = (await t.deps.runs.getRun(runId)).status;
    if (wanted.includes(status)) return status;
    await new Promise((r) => setTimeout(r, 50));
  }
  return status;
}

/** Records a person signing in, filling a cart, passing the one-time code and paying on the API shop. */
async function recordCheckout(): Promise<string> {
  const started = await call("POST", "/api/sessions/start", { start_url: `${shop.url}/shop` });
  expect(started.status).toBe(201);
  const id = String(started.json.id);
  const { page } = await t.deps.sessions.livePage(id);
  const status = page.getByRole("status");
  await page.getByLabel("Email").fill(shop.email);
  await page.getByLabel("Password").fill(shop.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await status.getByText("Signed in").waitFor();
  await page.getByRole("button", { name: "Add tea to cart" }).click();
  await status.getByText("Added").waitFor();
  await page.getByRole("button", { name: "Checkout" }).click();
  await status.getByText("We sent you a code").waitFor();
  await page.getByLabel("One-time code").fill(shop.otpCode);
  await page.getByRole("button", { name: "Verify" }).click();
  await status.getByText("Verified").waitFor();
  await page.getByLabel("Card number").fill(shop.cardNumber);
  await page.getByRole("button", { name: "Pay" }).click();
  await status.getByText("Payment successful").waitFor();
  const finished = await call("POST", `/api/sessions/${id}/finish`);
  expect(finished.status).toBe(200);
  return id;
}

describe("profiles and reconstruction", { timeout: 180_000 }, () => {
  it("records a checkout on the JSON shop and resolves it api-centric; a page that builds its form in script is ui-centric", async () => {
    sessionId = await recordCheckout();
    expect(shop.orders()).toHaveLength(1);
    const api = await call("POST", "/api/profiles/resolve", { artifacts: { session_id: sessionId } });
    expect(api.status).toBe(200);
    expect(api.json).toMatchObject({ profile: "api-centric", manual_handoff_required: false });
    expect(api.json.signals).toEqual(expect.arrayContaining(["otp", "login_form", "json_api"]));
    expect(Number(api.json.har_alignment_score)).toBeGreaterThanOrEqual(0.8);

    const widget = await (await fetch(`${shop.url}/widget`)).text();
    const ui = await call("POST", "/api/profiles/resolve", {
      artifacts: { html_content: widget, start_url: `${shop.url}/widget` },
      extractor_strategy: "aggressive",
    });
    expect(ui.status).toBe(200);
    expect(ui.json).toMatchObject({ profile: "ui-centric", signals: ["script_built_form"] });
  });

  it("previews http steps from the HAR with the cart id extracted and the OTP as a gate, and the generated run pays after the code is resumed", async () => {
    const preview = await call("POST", "/api/reconstruction/preview", {
      artifacts: { session_id: sessionId },
    });
    expect(preview.status).toBe(201);
    const draft = preview.json.flow_draft as {
      steps: AnyStep[];
      secrets: string[];
      dropped: Array<{ reason: string }>;
    };
    expect(draft.steps.map((s) => s.type)).toEqual(["http", "http", "http", "otp_gate", "http", "http"]);
    const [login, cart, checkout, , otp, pay] = draft.steps;
    expect(login?.extract).toMatchObject({ token: "$.token", csrf_token: "$.csrf_token" });
    expect(login?.body).toEqual({ email: "${params.email}", password: "${secrets.password}" });
    expect(cart?.extract).toEqual({ cart_id: "$.cart_id" });
    expect(checkout?.url).toBe(`${shop.url}/api/carts/\${vars.cart_id}/checkout`);
    expect(otp?.body).toEqual({ code: "${gate.otp_code}" });
    expect(pay?.body).toEqual({ card_number: "${secrets.card_number}" });
    expect(draft.secrets).toEqual(["card_number", "password"]);
    expect(draft.dropped.map((d) => d.reason)).toEqual(
      expect.arrayContaining(["static_asset", "analytics", "page_load"]),
    );
    expect(preview.json.unresolved_segments).toEqual([]);
    const outputs = preview.json.generator_outputs as { http_spec: string; playwright_spec: string };
    expect(outputs.http_spec).toContain("{{post_carts.response.body.$.cart_id}}");

    const made = await call("POST", "/api/reconstruction/generate", {
      preview_id: preview.json.preview_id,
      template_name: "tea checkout",
      create_run: true,
      run_params: { password: shop.password, card_number: shop.cardNumber },
    });
    expect(made.status).toBe(201);
    const runId = String(made.json.run_id);
    expect(await waitForStatus(runId, ["waiting_otp", "failed"])).toBe("waiting_otp");
    await t.deps.runs.resumeRun(runId, { kind: "otp", otp_code: shop.otpCode });
    expect(await waitForStatus(runId, ["success", "failed"])).toBe("success");
    expect(shop.orders()).toHaveLength(2);
  });

  it("runs the generated Playwright script green with playwright-core", async () => {
    const preview = await call("POST", "/api/reconstruction/preview", {
      artifacts: { session_id: sessionId },
    });
    const spec = (preview.json.generator_outputs as { playwright_spec: string }).playwright_spec;
    const dir = mkdtempSync(join(tmpdir(), "vetted-spec-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(
        resolve(here, "../../../packages/runs/node_modules/playwright-core"),
        join(dir, "node_modules", "playwright-core"),
      );
      writeFileSync(join(dir, "flow.mjs"), spec);
      const before = shop.orders().length;
      const out = await promisify(execFile)(process.execPath, [join(dir, "flow.mjs")], {
        env: {
          PATH: process.env.PATH ?? "",
          CHROMIUM_PATH: "/usr/bin/chromium",
          SECRET_PASSWORD: shop.password,
          SECRET_CARD_NUMBER: shop.cardNumber,
          OTP_CODE: shop.otpCode,
        },
        timeout: 90_000,
      });
      expect(out.stdout).toContain("flow passed");
      expect(shop.orders()).toHaveLength(before + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("reconstruction refuses bad artifacts with 4xx", { timeout: 60_000 }, () => {
  const harOf = (entries: unknown[]) => ({
    log: { version: "1.2", creator: { name: "t", version: "1" }, entries },
  });

  it("answers paths outside the roots 403, missing files 404, invalid HARs 422 and oversized ones 413", async () => {
    const resolveWith = (artifacts: unknown) => call("POST", "/api/profiles/resolve", { artifacts });
    for (const har_path of ["/etc/passwd", "relative.har", `${t.dir}/../etc/passwd`]) {
      expect(await resolveWith({ har_path })).toMatchObject({
        status: 403,
        json: { error: { code: "PATH_OUTSIDE_ROOT" } },
      });
    }
    const link = join(t.dir, "escape.har");
    symlinkSync("/etc/hostname", link);
    expect(await resolveWith({ har_path: link })).toMatchObject({
      status: 403,
      json: { error: { code: "PATH_OUTSIDE_ROOT" } },
    });
    expect(await resolveWith({ har_path: join(t.dir, "none.har") })).toMatchObject({
      status: 404,
      json: { error: { code: "ARTIFACT_NOT_FOUND" } },
    });
    expect(await resolveWith({ har_content: "not json" })).toMatchObject({
      status: 422,
      json: { error: { code: "HAR_INVALID" } },
    });
    expect(await resolveWith({ har_content: { log: { entries: [] } } })).toMatchObject({
      status: 422,
      json: { error: { code: "HAR_INVALID" } },
    });
    expect(await resolveWith({})).toMatchObject({
      status: 400,
      json: { error: { code: "VALIDATION_FAILED" } },
    });
    const big = JSON.stringify(harOf([])) + " ".repeat(1024 * 1024 + 10);
    const tooBig = await call("POST", "/api/profiles/resolve", { artifacts: { har_content: big } });
    expect(tooBig).toMatchObject({ status: 413, json: { error: { code: "PAYLOAD_TOO_LARGE" } } });
    const bigFile = join(t.dir, "big.har");
    writeFileSync(bigFile, big);
    expect(await resolveWith({ har_path: bigFile })).toMatchObject({
      status: 413,
      json: { error: { code: "ARTIFACT_TOO_LARGE" } },
    });
    const okFile = join(t.dir, "empty.har");
    writeFileSync(okFile, JSON.stringify(harOf([])));
    expect(await resolveWith({ har_path: okFile })).toMatchObject({
      status: 200,
      json: { profile: "ui-centric" },
    });
  });

  it("answers an unknown preview 404 and an expired one 410, and a session that is not finished 409", async () => {
    expect(
      await call("POST", "/api/reconstruction/generate", { preview_id: "rcp_nope", template_name: "x" }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: "PREVIEW_NOT_FOUND" } },
    });
    let now = Date.now() - 24 * 60 * 60 * 1000 - 5000;
    const engine = createReconstructionEngine({
      db: t.deps.database.db,
      dataDir: t.dir,
      allowedRoots: [t.dir],
      maxArtifactBytes: 1024 * 1024,
      protectedDomains: [],
      runs: t.deps.runs,
      clock: { now: () => now },
    });
    const made = await engine.preview({
      artifacts: { html_content: "<form><label for=a>Name</label><input id=a name=a></form>" },
    });
    await expect(
      engine.generate({ preview_id: made.preview_id, template_name: "fresh" }),
    ).resolves.toMatchObject({
      flow_id: expect.stringMatching(/^flow_/),
    });
    now += 24 * 60 * 60 * 1000 + 1;
    await expect(engine.getPreview(made.preview_id)).rejects.toMatchObject({ code: "PREVIEW_EXPIRED" });
    expect(
      await call("POST", "/api/reconstruction/generate", { preview_id: made.preview_id, template_name: "x" }),
    ).toMatchObject({
      status: 410,
      json: { error: { code: "PREVIEW_EXPIRED" } },
    });
    expect(
      await call("POST", "/api/reconstruction/preview", { artifacts: { session_id: "ss_nope" } }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: "SESSION_NOT_FOUND" } },
    });
  });
});

describe("reconstruction keeps no credential from a recorded URL", { timeout: 60_000 }, () => {
  const LIVE_KEY = "sk_live_51HxQmZLeakTestKey0123456789";
  const TEST_KEY = "sk_test_4eC39HqLyjWDarjtT1zdp7dc";
  const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyXzEyMyJ9.c2lnbmF0dXJlX2J5dGVz";
  const NEEDLES = ["sk_live_", "sk_test_", LIVE_KEY, TEST_KEY, JWT, "hunter2pass"];

  function exchange(method: string, url: string, req?: unknown, res: unknown = { ok: true }) {
    const u = new URL(url);
    return {
      startedDateTime: "2026-01-01T00:00:00.000Z",
      time: 1,
      request: {
        method,
        url,
        httpVersion: "HTTP/1.1",
        headers: [{ name: "Accept", value: "application/json" }],
        queryString: [...u.searchParams].map(([name, value]) => ({ name, value })),
        cookies: [],
        headersSize: -1,
        bodySize: -1,
        ...(req === undefined
          ? {}
          : { postData: { mimeType: "application/json", text: JSON.stringify(req) } }),
      },
      response: {
        status: 200,
        statusText: "OK",
        httpVersion: "HTTP/1.1",
        headers: [],
        cookies: [],
        content: { size: 0, mimeType: "application/json", text: JSON.stringify(res) },
        redirectURL: "",
        headersSize: -1,
        bodySize: -1,
      },
      timings: {},
    };
  }

  /** The database file and its WAL and shared-memory files, as bytes. */
  function databaseBytes(): Buffer {
    const parts: Buffer[] = [];
    for (const suffix of ["", "-wal", "-shm"]) {
      try {
        parts.push(readFileSync(join(t.dir, `test.db${suffix}`)));
      } catch {
        // no such file (yet)
      }
    }
    return Buffer.concat(parts);
  }

  it("turns ?api_key=sk_live_… and other credential query params into secret params: the preview, the flow, the template and the database hold none", async () => {
    const har = {
      log: {
        version: "1.2",
        creator: { name: "t", version: "1" },
        entries: [
          exchange("GET", `https://api.shop.test/v1/products?api_key=${LIVE_KEY}&limit=10`, undefined, {
            items: [{ id: "prod_tea" }],
          }),
          exchange("POST", `https://api.shop.test/v1/orders?access_token=${JWT}&ref=${TEST_KEY}`, {
            product: "prod_tea",
          }),
          exchange("GET", `https://user:hunter2pass@api.shop.test/v1/orders?ApiKey=${LIVE_KEY}&page=2`),
          exchange("GET", `https://www.google-analytics.com/collect?tid=UA-1&key=${LIVE_KEY}`),
        ],
      },
    };
    const preview = await call("POST", "/api/reconstruction/preview", {
      artifacts: { har_content: har },
      mode: "http",
    });
    expect(preview.status).toBe(201);
    const draft = preview.json.flow_draft as { steps: AnyStep[]; secrets: string[]; dropped: unknown[] };
    expect(draft.steps.map((step) => step.url)).toEqual([
      "https://api.shop.test/v1/products?api_key=${secrets.api_key}&limit=10",
      "https://api.shop.test/v1/orders?access_token=${secrets.access_token}&ref=${secrets.ref}",
      "https://api.shop.test/v1/orders?ApiKey=${secrets.api_key}&page=2",
    ]);
    expect(draft.secrets).toEqual(["access_token", "api_key", "ref"]);
    expect(draft.dropped).toEqual([
      {
        url: "https://www.google-analytics.com/collect?tid=UA-1&key=%5Bredacted%5D",
        reason: "analytics",
      },
    ]);
    const previewText = JSON.stringify(preview.json);
    for (const needle of NEEDLES) expect(previewText).not.toContain(needle);

    const generated = await call("POST", "/api/reconstruction/generate", {
      preview_id: preview.json.preview_id,
      template_name: "keyed shop",
    });
    expect(generated.status).toBe(201);
    const flow = await call("GET", `/api/flows/${String(generated.json.flow_id)}`);
    const template = await call("GET", `/api/templates/${String(generated.json.template_id)}`);
    expect(template.json.params_schema).toEqual(
      expect.arrayContaining([{ key: "api_key", type: "secret", required: true }]),
    );
    const stored = databaseBytes();
    expect(stored.includes("keyed shop")).toBe(true);
    expect(JSON.stringify(flow.json)).toContain("?api_key=${secrets.api_key}&limit=10");
    for (const text of [JSON.stringify(flow.json), JSON.stringify(template.json)]) {
      for (const needle of NEEDLES) expect(text).not.toContain(needle);
    }
    for (const needle of NEEDLES) expect(stored.includes(needle), `the database holds ${needle}`).toBe(false);
  });
});
