import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../app.js";
import { createTestApp, type TestApp } from "../tests/test-app.js";

const LOCAL = { host: "127.0.0.1" };
const HTML = { ...LOCAL, accept: "text/html,application/xhtml+xml" };
const EXAMPLE = fileURLToPath(
  new URL("../../../../packages/comparison/examples/comparison.json", import.meta.url),
);
let t: TestApp;
let dist: string;

beforeAll(async () => {
  t = await createTestApp();
  dist = join(t.dir, "web-dist");
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>console</title>");
  writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "sw.js"), "self.addEventListener('install', () => {});");
});
afterAll(async () => t?.close());

describe("serving the web console", () => {
  it("answers index.html (no-cache) at / and for SPA routes, immutable hashed assets, JSON 404 under /api", async () => {
    const app = createApp({ ...t.deps, webDist: dist });
    const root = await app.request("/", { headers: HTML });
    expect(root.status).toBe(200);
    expect(root.headers.get("cache-control")).toBe("no-cache");
    expect(await root.text()).toContain("<title>console</title>");
    const spa = await app.request("/runs/run_1?x=1", { headers: HTML });
    expect(await spa.text()).toContain("<title>console</title>");
    const asset = await app.request("/assets/index-abc123.js", { headers: LOCAL });
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toMatch(/javascript/);
    const escaping = await app.request("/assets/..%2f..%2ftest.db", { headers: LOCAL });
    expect(escaping.status).toBe(404);
    const api = await app.request("/api/nope", { headers: HTML });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
    const notHtml = await app.request("/nope", { headers: LOCAL });
    expect(notHtml.status).toBe(404);
    // The service worker at the root (scope `/`): a script, never cached, so an update is seen at once.
    const worker = await app.request("/sw.js", { headers: LOCAL });
    expect(worker.status).toBe(200);
    expect(worker.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    expect(worker.headers.get("cache-control")).toBe("no-cache");
  });

  it("without a built console, / says how to build it", async () => {
    const app = createApp({ ...t.deps, webDist: join(t.dir, "missing") });
    const res = await app.request("/", { headers: HTML });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("pnpm --filter @vetted/web build");
  });

  it("serves /api/docs and Scalar's bundle from the npm package", async () => {
    const res = await t.app.request("/api/docs", { headers: LOCAL });
    expect(await res.text()).toContain('src="/api/docs/assets/standalone.js"');
    const js = await t.app.request("/api/docs/assets/standalone.js", { headers: LOCAL });
    expect(js.status).toBe(200);
  });
});

describe("GET /api/comparison/document", () => {
  it("is 404 COMPARISON_NOT_CONFIGURED when unset or unreadable", async () => {
    const unset = await t.app.request("/api/comparison/document", { headers: LOCAL });
    expect(unset.status).toBe(404);
    expect(((await unset.json()) as { error: { code: string } }).error.code).toBe(
      "COMPARISON_NOT_CONFIGURED",
    );
    const app = createApp({ ...t.deps, comparisonFile: join(t.dir, "nope.json") });
    const missing = await app.request("/api/comparison/document", { headers: LOCAL });
    expect(missing.status).toBe(404);
  });

  it("answers the configured document with its check; an invalid one with line and column", async () => {
    const ok = await createApp({ ...t.deps, comparisonFile: EXAMPLE }).request("/api/comparison/document", {
      headers: LOCAL,
    });
    const body = (await ok.json()) as { document: { comparisons: unknown[] }; check: { valid: boolean } };
    expect(body.check.valid).toBe(true);
    expect(body.document.comparisons).toHaveLength(10);
    const bad = join(t.dir, "bad.json");
    writeFileSync(bad, '{\n  "comparisonVersion": "x"\n}');
    const res = await createApp({ ...t.deps, comparisonFile: bad }).request("/api/comparison/document", {
      headers: LOCAL,
    });
    const check = (await res.json()) as {
      document: unknown;
      check: { valid: boolean; issues: { line?: number }[] };
    };
    expect(check.document).toBeNull();
    expect(check.check.valid).toBe(false);
    expect(check.check.issues.some((i) => typeof i.line === "number")).toBe(true);
  });
});
