import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { signingString, signParams } from "./integrations/vonage-signature.js";
import { apiClient } from "./tests/api-client.js";
import { type FakeShop, GOOD_OTP, startFakeShop } from "./tests/fake-shop.js";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

const TOKEN = "inbound-token-0123456789";
const SECRET = "signature-secret-0123456789";
const PATH = "/api/integrations/vonage/inbound-sms";
const BASE = "http://127.0.0.1";

/** `app.request` with the Host header a loopback client sends. */
function call(
  t: TestApp,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return t.app.request(url, { ...init, headers: { Host: "127.0.0.1", ...init.headers } });
}
const TO = "447700900001";
const vonage = { inboundToken: TOKEN, signatureSecret: SECRET, maxSkewS: 600 };

/** A callback's parameters as Vonage sends them, signed with `secret` (over everything but `sig`). */
function signed(fields: Record<string, string>, secret = SECRET): Record<string, string> {
  const params = {
    msisdn: "447700900999",
    to: TO,
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    text: `Your code is ${GOOD_OTP}`,
    type: "text",
    timestamp: String(Math.floor(Date.now() / 1000)),
    ...fields,
  };
  return { ...params, sig: signParams(params, secret) };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function app(
  extra: Parameters<typeof createTestApp>[4] = { vonage },
  apiToken?: string,
): Promise<TestApp> {
  const t = await createTestApp(apiToken === undefined ? {} : { apiToken }, {}, {}, {}, extra);
  cleanups.push(t.close);
  return t;
}

function post(t: TestApp, params: Record<string, string>, headers: Record<string, string> = {}, query = "") {
  return call(t, `${BASE}${PATH}${query}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "x-vonage-inbound-token": TOKEN, ...headers },
    body: JSON.stringify(params),
  });
}

async function codeOf(res: Response): Promise<string | undefined> {
  const body = (await res.json()) as { error?: { code?: string } };
  return body.error?.code;
}

describe("the signing string", () => {
  it("sorts keys, leaves out sig, and replaces & and = inside values", () => {
    expect(signingString({ b: "x=1&y", a: "2", sig: "zz" })).toBe("&a=2&b=x_1_y");
  });
});

describe("inbound SMS authentication", () => {
  it("answers 503 INTEGRATION_NOT_CONFIGURED without a token or secret, and audits it", async () => {
    const t = await app({});
    const res = await post(t, signed({}));
    expect([res.status, await codeOf(res)]).toEqual([503, "INTEGRATION_NOT_CONFIGURED"]);
    const half = await app({ vonage: { ...vonage, signatureSecret: undefined } });
    expect((await post(half, signed({}))).status).toBe(503);
    const audit = (await (await call(t, `${BASE}/api/integrations/vonage/messages`)).json()) as {
      items: Array<{ outcome: string; reason: string }>;
    };
    expect(audit.items).toMatchObject([{ outcome: "rejected", reason: "not_configured" }]);
  });

  it("accepts a signed callback as JSON, as a form, and as a GET query", async () => {
    const t = await app();
    expect((await post(t, signed({}))).status).toBe(200);
    const form = await call(t, `${BASE}${PATH}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "x-vonage-inbound-token": TOKEN },
      body: new URLSearchParams(signed({ text: "a=b&c 123456" })).toString(),
    });
    expect(form.status).toBe(200);
    const query = new URLSearchParams(signed({}));
    const get = await call(t, `${BASE}${PATH}?${query}`, {
      headers: { "x-vonage-inbound-token": TOKEN },
    });
    expect(get.status).toBe(200);
    // Query and body merged: the signature covers both.
    const all = signed({ messageId: "split" });
    const { text, ...rest } = all;
    const merged = await post(t, { text: text ?? "" }, {}, `?${new URLSearchParams(rest)}`);
    expect(await merged.json()).toMatchObject({ ok: true, duplicate: false, message_id: "split" });
  });

  it("answers a malformed multipart form 400 BAD_REQUEST, not 500 (found by pnpm fuzz)", async () => {
    const t = await app();
    const res = await call(t, `${BASE}${PATH}`, {
      method: "POST",
      headers: { "Content-Type": "multipart/form-data; boundary=x", "x-vonage-inbound-token": TOKEN },
      body: "{}",
    });
    expect([res.status, await codeOf(res)]).toEqual([400, "BAD_REQUEST"]);
  });

  it("refuses a wrong or missing header token, and a token in the query even with the right header", async () => {
    const t = await app();
    const wrong = await post(t, signed({}), { "x-vonage-inbound-token": "not-the-token-at-all" });
    expect([wrong.status, await codeOf(wrong)]).toEqual([401, "UNAUTHORIZED"]);
    const missing = await call(t, `${BASE}${PATH}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(signed({})),
    });
    expect(missing.status).toBe(401);
    const inQuery = await post(t, signed({}), {}, `?token=${TOKEN}`);
    expect([inQuery.status, await codeOf(inQuery)]).toEqual([401, "UNAUTHORIZED"]);
  });

  it("answers 401 SIGNATURE_INVALID for a bad signature, another secret, a changed field, a stale or missing timestamp", async () => {
    const t = await app();
    const cases = [
      { ...signed({}), sig: "00".repeat(32) },
      signed({}, "another-secret-0123456789"),
      { ...signed({}), text: "Your code is 654321" },
      signed({ timestamp: String(Math.floor(Date.now() / 1000) - 601) }),
      signed({ timestamp: String(Math.floor(Date.now() / 1000) + 700) }),
      signed({ timestamp: "" }),
    ];
    for (const params of cases) {
      const res = await post(t, params);
      expect([res.status, await codeOf(res)]).toEqual([401, "SIGNATURE_INVALID"]);
    }
    const audit = (await (await call(t, `${BASE}/api/integrations/vonage/messages?limit=10`)).json()) as {
      items: Array<{ reason: string }>;
    };
    expect(audit.items.map((i) => i.reason).sort()).toEqual(
      [
        "signature_invalid",
        "signature_invalid",
        "signature_invalid",
        "timestamp_stale",
        "timestamp_stale",
        "timestamp_missing",
      ].sort(),
    );
  });

  it("answers 400 for an algorithm other than sha256 (md5), even when signed", async () => {
    const t = await app();
    const md5 = await post(t, signed({ sig_method: "md5hash" }));
    expect([md5.status, await codeOf(md5)]).toEqual([400, "SIGNATURE_ALGORITHM_UNSUPPORTED"]);
    expect((await post(t, signed({ algorithm: "MD5" }))).status).toBe(400);
    expect((await post(t, signed({ sig_method: "sha256" }))).status).toBe(200);
  });

  it("answers 422 for empty text and a repeat as a duplicate", async () => {
    const t = await app();
    const empty = await post(t, signed({ text: "" }));
    expect([empty.status, await codeOf(empty)]).toEqual([422, "REQUEST_INVALID"]);
    const params = signed({ messageId: "same-id" });
    expect(await (await post(t, params)).json()).toMatchObject({ ok: true, duplicate: false });
    expect(await (await post(t, params)).json()).toMatchObject({ ok: true, duplicate: true });
    const audit = (await (await call(t, `${BASE}/api/integrations/vonage/messages`)).json()) as {
      items: Array<{ outcome: string; reason: string | null }>;
    };
    expect(audit.items.map((i) => [i.outcome, i.reason])).toEqual([
      ["duplicate", null],
      ["accepted", "no_waiting_run"],
      ["rejected", "text_empty"],
    ]);
  });

  it("stays open without the API token while the message audit needs it", async () => {
    const api = "api-token-0123456789abcdef";
    const t = await app({ vonage }, api);
    expect((await post(t, signed({}))).status).toBe(200);
    expect((await call(t, `${BASE}/api/integrations/vonage/messages`)).status).toBe(401);
    const listed = await call(t, `${BASE}/api/integrations/vonage/messages`, {
      headers: { Authorization: `Bearer ${api}` },
    });
    expect(listed.status).toBe(200);
  });
});

describe("a signed inbound SMS resumes a waiting run of the test shop (server process, real HTTP)", () => {
  let dir: string;
  let server: ServerProcess;
  let shop: FakeShop;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vetted-sms-api-"));
    shop = await startFakeShop();
    server = await startServerProcess({
      VETTED_DATA_DIR: dir,
      VETTED_RUNS_LEASE_MS: "1000",
      VETTED_RUNS_POLL_MS: "50",
      VETTED_VONAGE_INBOUND_TOKEN: TOKEN,
      VETTED_VONAGE_SIGNATURE_SECRET: SECRET,
    });
    api = apiClient(server.url);
  }, 60_000);

  afterAll(async () => {
    await server?.kill();
    await shop?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("resumes it once: the repeat is a duplicate, and the run finishes", async () => {
    const flow = await api.post("/api/flows", {
      name: "sms checkout",
      steps: [
        { id: "cart", type: "http", method: "POST", url: "${params.shop}/cart", expect: { status: [200] } },
        { id: "code", type: "otp_gate", prompt: "Enter the code we texted you" },
        {
          id: "pay",
          type: "http",
          method: "POST",
          url: "${params.shop}/pay",
          body: { otp: "${gate.otp_code}" },
          expect: { status: [200] },
        },
      ],
    });
    const tpl = await api.post("/api/templates", {
      name: "sms checkout",
      flow_id: (flow.json as { id: string }).id,
      params_schema: [{ key: "shop", type: "string", required: true }],
      policies: { otp: { source: "inbound_sms", to: `+${TO}` } },
    });
    expect(tpl.status).toBe(201);
    const created = await api.post("/api/runs", {
      template_id: (tpl.json as { id: string }).id,
      params: { shop: shop.shopUrl },
    });
    await api.waitForRun(created.run.id, (r) => r.status === "waiting_otp");
    const params = signed({ messageId: "e2e-1" });
    const headers = { "x-vonage-inbound-token": TOKEN };
    const first = await api.post(PATH, params, headers);
    expect(first.json).toEqual({ ok: true, duplicate: false, message_id: "e2e-1", run_id: created.run.id });
    const repeat = await api.post(PATH, params, headers);
    expect(repeat.json).toMatchObject({ ok: true, duplicate: true });
    const done = await api.waitForRun(created.run.id, (r) => r.status === "success");
    expect(done.status).toBe("success");
    const events = await api.get(`/api/runs/${created.run.id}/events`);
    const items = (events.json as { items: Array<{ type: string }> }).items;
    expect(items.filter((e) => e.type === "gate_resolved")).toHaveLength(1);
    expect(JSON.stringify(events.json)).not.toContain(GOOD_OTP);
  });
});
