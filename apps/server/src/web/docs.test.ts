import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../middleware/security-headers.js";
import { type Loopback, serveOnLoopback } from "../tests/loopback.js";
import { createTestApp, type TestApp } from "../tests/test-app.js";
import { CONSOLE_TOKEN_KEY, DOCS_INIT_PATH, docsBundleDir } from "./docs.js";

const TOKEN = "docs-test-token-0123456789";
let t: TestApp;
let server: Loopback;
let url: string;

beforeAll(async () => {
  t = await createTestApp({ apiToken: TOKEN });
  server = await serveOnLoopback(t.app.fetch);
  url = server.url;
});
afterAll(async () => {
  await server?.close();
  await t?.close();
});

/** Paths that answer without the token by design (health, telemetry, provider webhooks, the reference). */
const OPEN = new Set([
  "/healthz",
  "/api/health",
  "/api/health/rum",
  "/api/integrations/vonage/inbound-sms",
  "/api/docs",
  "/api/openapi.json",
]);

describe("/api/docs on a server with an API token (real loopback server)", () => {
  it("answers the page, its assets and the OpenAPI document without the token, under the strict CSP", async () => {
    const page = await fetch(`${url}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    const html = await page.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\ssrc=)[^>]*>[^<]/); // no inline script
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
    expect(scripts).toEqual(["/api/docs/assets/standalone.js", DOCS_INIT_PATH]);
    for (const src of scripts) {
      const res = await fetch(`${url}${src}`);
      expect(res.status, src).toBe(200);
      expect(res.headers.get("content-type"), src).toMatch(/javascript/);
      expect((await res.text()).length).toBeGreaterThan(100);
    }
    const doc = await fetch(`${url}/api/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { security: unknown }).security).toEqual([{ bearer: [] }]);
  });

  it("hands the console's stored token to Scalar for 'Try it' (bearer scheme)", async () => {
    const init = await (await fetch(`${url}${DOCS_INIT_PATH}`)).text();
    expect(init).toContain(`sessionStorage.getItem("${CONSOLE_TOKEN_KEY}")`);
    expect(init).toContain('preferredSecurityScheme: "bearer"');
    expect(init).toContain('url: "/api/openapi.json"');
  });

  it("still answers 401 on every other route of the OpenAPI document without the token", async () => {
    const doc = (await (await fetch(`${url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const checked: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (OPEN.has(path)) continue;
      for (const method of Object.keys(operations)) {
        const concrete = path.replace(/\{[^}]+\}/g, "x");
        const res = await fetch(`${url}${concrete}`, {
          method: method.toUpperCase(),
          ...(method === "get" ? {} : { headers: { "content-type": "application/json" }, body: "{}" }),
        });
        expect(res.status, `${method} ${path}`).toBe(401);
        await res.body?.cancel();
        checked.push(`${method} ${path}`);
      }
    }
    expect(checked.length).toBeGreaterThan(80);
    expect(checked).toContain("get /api/runs");
    // Under the asset prefix only assets are served: nothing there reaches a data route.
    const sneaky = await fetch(`${url}/api/docs/assets/..%2f..%2fruns`);
    expect(sneaky.status).toBe(404);
  });

  it("accepts the token on a data route (the docs' 'Try it' requests send it)", async () => {
    const res = await fetch(`${url}/api/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
  });
});

describe("the reference bundle", () => {
  it("is taken from beside the built server first (a production install has no @scalar/api-reference)", () => {
    const dist = mkdtempSync(join(tmpdir(), "vetted-docs-"));
    try {
      // Without a built copy, a development checkout falls back to the package's own bundle.
      expect(docsBundleDir(dist)).toMatch(/@scalar[\\/]api-reference[\\/]dist[\\/]browser$/);
      mkdirSync(join(dist, "docs"));
      writeFileSync(join(dist, "docs", "standalone.js"), "window.Scalar = {};");
      expect(docsBundleDir(dist)).toBe(join(dist, "docs"));
    } finally {
      rmSync(dist, { recursive: true, force: true });
    }
  });
});
