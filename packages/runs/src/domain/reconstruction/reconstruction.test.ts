import { describe, expect, it } from "vitest";
import { Har, harExchanges } from "./har.js";
import { summarizeHtml } from "./html-parse.js";
import type { PlanContext } from "./inputs.js";
import { buildPreview } from "./preview.js";
import { resolveProfile } from "./profile.js";
import {
  isCardNumber,
  isSecretParamName,
  looksLikeSecretValue,
  redactUrlSecrets,
  sensitiveKindOf,
} from "./sensitive.js";

function entry(
  method: string,
  url: string,
  status: number,
  opts: { req?: unknown; res?: unknown; mime?: string; headers?: Record<string, string> } = {},
) {
  return {
    startedDateTime: "2026-01-01T00:00:00.000Z",
    time: 1,
    request: {
      method,
      url,
      httpVersion: "HTTP/1.1",
      headers: Object.entries(opts.headers ?? {}).map(([name, value]) => ({ name, value })),
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: -1,
      ...(opts.req === undefined
        ? {}
        : { postData: { mimeType: "application/json", text: JSON.stringify(opts.req) } }),
    },
    response: {
      status,
      statusText: "",
      httpVersion: "HTTP/1.1",
      headers: [],
      cookies: [],
      content: {
        size: 0,
        mimeType: opts.mime ?? "application/json",
        ...(opts.res === undefined ? {} : { text: JSON.stringify(opts.res) }),
      },
      redirectURL: "",
      headersSize: -1,
      bodySize: -1,
    },
    timings: {},
  };
}

function har(entries: unknown[]) {
  return harExchanges(Har.parse({ log: { version: "1.2", creator: { name: "t", version: "1" }, entries } }));
}

const ctx = (strategy: PlanContext["strategy"], protectedDomains: string[] = []): PlanContext => ({
  strategy,
  protectedDomains,
});

describe("reconstruction planners", () => {
  const shop = har([
    entry("GET", "https://shop.test/", 200, { mime: "text/html" }),
    entry("GET", "https://shop.test/app.js", 200, { mime: "application/javascript" }),
    entry("POST", "https://www.google-analytics.com/g/collect", 204, { mime: "" }),
    entry("POST", "https://shop.test/api/session", 200, {
      req: { user: "ada", pin: "1234" },
      res: { session_token: "tok_9f8e7d6c5b4a" },
    }),
    entry("POST", "https://shop.test/api/orders", 201, {
      req: { card: "4242 4242 4242 4242" },
      res: { order: { id: "ord_12ab34cd" } },
      headers: { Authorization: "Bearer tok_9f8e7d6c5b4a" },
    }),
    entry("POST", "https://pay.stripe.com/v1/charges/ord_12ab34cd", 200, { req: { otp: "123456" }, res: {} }),
  ]);

  it("turns flowing values into extracts, secrets into secret params, the code into a gate, and marks provider steps", () => {
    const p = buildPreview({ har: shop }, ctx("balanced", ["stripe.com"]), "auto");
    expect(p.profile.profile).toBe("api-centric");
    const steps = p.plan.steps as Array<Record<string, unknown>>;
    expect(steps.map((s) => s.type)).toEqual(["http", "http", "otp_gate", "http"]);
    expect(steps[0]).toMatchObject({
      body: { user: "${params.user}", pin: "${secrets.pin}" },
      extract: { session_token: "$.session_token" },
    });
    expect(steps[1]).toMatchObject({
      headers: { Authorization: "Bearer ${vars.session_token}" },
      body: { card: "${secrets.card}" },
      extract: { id: "$.order.id" },
    });
    expect(steps[3]).toMatchObject({
      url: "https://pay.stripe.com/v1/charges/${vars.id}",
      body: { otp: "${gate.otp_code}" },
    });
    expect(p.plan.approvals).toEqual([{ step_id: steps[3]?.id, provider_domain: "stripe.com" }]);
    expect(p.plan.dropped.map((d) => d.reason).sort()).toEqual(["analytics", "page_load", "static_asset"]);
    expect(p.plan.params).toEqual([{ key: "user", default: "ada" }]);
    expect(p.unresolved_segments).toEqual([]);
  });

  it("leaves an id that no recorded response issued unresolved, below 0.78", () => {
    const orphan = har([
      entry("GET", "https://shop.test/api/orders/ord_77zz88yy/receipt", 200, { res: { ok: true } }),
    ]);
    const p = buildPreview({ har: orphan }, ctx("strict"), "http");
    expect(p.unresolved_segments).toHaveLength(1);
    expect(p.unresolved_segments[0]?.confidence).toBeLessThan(0.78);
    expect(p.unresolved_segments[0]?.reasons.join(" ")).toMatch(/generated-looking id/);
  });

  it("hands off to a person when a CAPTCHA guards the page, whatever the HAR", () => {
    const html = summarizeHtml(
      '<form><div class="g-recaptcha"></div><input type="password" name="pw"></form>',
    );
    const p = resolveProfile({ har: shop, html }, ctx("aggressive"));
    expect(p).toMatchObject({ profile: "ui-centric", manual_handoff_required: true });
    expect(p.signals).toEqual(expect.arrayContaining(["captcha", "login_form"]));
  });

  it("plans browser steps from a static form: fields typed with params, secrets for passwords, submit clicked", () => {
    const html = summarizeHtml(
      '<form><label for="e">Email</label><input id="e" name="email"><label for="p">Password</label><input id="p" name="password" type="password"><button>Sign in</button></form>',
    );
    const p = buildPreview({ html, startUrl: "https://x.test/login" }, ctx("balanced"), "auto");
    expect(p.plan.steps.map((s) => s.type)).toEqual(["navigate", "type", "type", "click"]);
    expect(p.plan.steps[2]).toMatchObject({ value: "${secrets.password}" });
    const selectors = (step: unknown) => (step as { target: { selectors: unknown[] } }).target.selectors[0];
    expect(selectors(p.plan.steps[2])).toMatchObject({ kind: "label", value: "Password" });
    expect(selectors(p.plan.steps[3])).toMatchObject({ kind: "role", value: "button", name: "Sign in" });
  });

  it("knows credential query params by name (any case or spelling) and by value format", () => {
    for (const name of ["api_key", "apiKey", "API-KEY", "apikey", "key", "token", "access_token", "Secret"]) {
      expect(isSecretParamName(name), name).toBe(true);
    }
    for (const name of ["client_secret", "password", "signature", "X-Amz-Signature", "sig", "auth", "code"]) {
      expect(isSecretParamName(name), name).toBe(true);
    }
    for (const name of ["limit", "page", "q", "sort", "product_id", "monkey"]) {
      expect(isSecretParamName(name), name).toBe(false);
    }
    for (const value of [
      "sk_live_51HxQmZabcdef",
      "rk_test_abcdefgh1234",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
      `ghp_${"a".repeat(36)}`,
      "AKIAIOSFODNN7EXAMPLE",
      "Bearer sk_test_4eC39HqLyjWDarjt",
    ]) {
      expect(looksLikeSecretValue(value), value).toBe(true);
    }
    for (const value of ["prod_tea", "10", "sk_other", "eyJ-not-a-jwt"]) {
      expect(looksLikeSecretValue(value), value).toBe(false);
    }
    const url = new URL("https://u:p@api.test/x?api_key=sk_live_abcdefgh12&limit=10&q=tea#token=abc");
    expect(redactUrlSecrets(url)).toBe("https://api.test/x?api_key=%5Bredacted%5D&limit=10&q=tea");
  });

  it("makes a secret param of a credential in a query string, and shows the start URL without it", () => {
    const p = buildPreview(
      {
        har: har([
          entry("GET", "https://api.x.test/v1/items?api_key=sk_live_51HxQmZabcdef&limit=5", 200, {
            res: { items: [] },
          }),
        ]),
      },
      ctx("balanced"),
      "http",
    );
    expect(p.plan.steps[0]).toMatchObject({
      url: "https://api.x.test/v1/items?api_key=${secrets.api_key}&limit=5",
    });
    expect(p.plan.secrets).toEqual(["api_key"]);
    expect(p.plan.start_url).toBe("https://api.x.test/v1/items?api_key=%5Bredacted%5D&limit=5");
    expect(JSON.stringify(p)).not.toContain("sk_live_");
  });

  it("knows secret field names and card numbers", () => {
    expect(["password", "card_number", "otp", "code", "cvc", "oneTimeCode"].map(sensitiveKindOf)).toEqual([
      "password",
      "card",
      "otp",
      "otp",
      "card",
      "otp",
    ]);
    expect(sensitiveKindOf("email")).toBeUndefined();
    expect(isCardNumber("4242 4242 4242 4242")).toBe(true);
    expect(isCardNumber("4242 4242 4242 4241")).toBe(false);
  });
});
