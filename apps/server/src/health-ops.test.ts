import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { API_CSP, CONSOLE_CSP } from "./middleware/security-headers.js";
import { serveOnLoopback } from "./tests/loopback.js";
import { createTestApp, type TestApp } from "./tests/test-app.js";

const TOKEN = "health-test-token-0123456789";
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A test app served by the real Node HTTP server on an ephemeral loopback port. */
async function serve(...args: Parameters<typeof createTestApp>): Promise<{ url: string; t: TestApp }> {
  const t = await createTestApp(...args);
  const server = await serveOnLoopback(t.app.fetch);
  cleanups.push(async () => {
    await server.close();
    await t.close();
  });
  return { url: server.url, t };
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, "127.0.0.1");
  await once(probe, "listening");
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  return port;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

describe("diagnostics and alerts", () => {
  it("move from ok to degraded once runs fail for real (an http step against a closed port)", async () => {
    const { url } = await serve();
    const before = await json(await fetch(`${url}/api/health/alerts`));
    expect(before.state).toBe("ok");
    const diag = await json(await fetch(`${url}/api/health/diagnostics`));
    expect(diag).toMatchObject({
      status: "ok",
      version: "0.0.0-test",
      storage: { backend: "file", ok: true },
    });
    // The automation lane is wired by default: its task counts are there (all zero here).
    expect(diag.tasks).toMatchObject({ by_status: { running: 0, failed: 0 } });

    const port = await closedPort();
    const flow = await json(
      await post(`${url}/api/flows`, {
        name: "down",
        steps: [{ id: "call", type: "http", url: `http://127.0.0.1:${port}/nothing` }],
      }),
    );
    const run = await json(await post(`${url}/api/runs`, { flow_id: flow.id }));
    let status = "";
    for (let i = 0; i < 300 && status !== "failed"; i++) {
      status = String((await json(await fetch(`${url}/api/runs/${String(run.id)}`))).status);
      if (status !== "failed") await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe("failed");

    const after = await json(await fetch(`${url}/api/health/alerts`));
    expect(after.state).toBe("degraded");
    expect(after.runs).toMatchObject({ failed: 1, success: 0, failure_rate: 1 });
    expect(after.alerts).toEqual([
      expect.objectContaining({ code: "RUN_FAILURE_RATE", severity: "critical" }),
    ]);
    const degraded = await json(await fetch(`${url}/api/health/diagnostics`));
    expect(degraded).toMatchObject({ status: "degraded", alerts: ["RUN_FAILURE_RATE"] });
    expect((degraded.runs as { by_status: Record<string, number> }).by_status.failed).toBe(1);
    expect((degraded.file_jobs as { by_status: Record<string, number> }).by_status).toHaveProperty(
      "queued",
      0,
    );
  }, 60_000);

  it("count automation tasks through the operator-lanes port once it is wired", async () => {
    const { url } = await serve(
      {},
      {},
      {},
      {},
      {
        operatorLanes: {
          taskCounts: async () => ({
            by_status: { success: 1, failed: 3 },
            finished_in_window: { success: 1, failed: 3, cancelled: 0 },
          }),
        },
      },
    );
    const alerts = await json(await fetch(`${url}/api/health/alerts`));
    expect(alerts.tasks).toMatchObject({ failed: 3, failure_rate: 0.75 });
    expect(alerts.alerts).toEqual([
      expect.objectContaining({ code: "TASK_FAILURE_RATE", severity: "critical" }),
    ]);
    expect((await json(await fetch(`${url}/api/health/diagnostics`))).tasks).toEqual({
      by_status: { success: 1, failed: 3 },
    });
  });

  it("keeps diagnostics behind the token while health and RUM stay open", async () => {
    const { url } = await serve({ apiToken: TOKEN });
    expect((await fetch(`${url}/api/health/diagnostics`)).status).toBe(401);
    expect((await fetch(`${url}/api/health/alerts`)).status).toBe(401);
    const ok = await fetch(`${url}/api/health/diagnostics`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
    expect((await post(`${url}/api/health/rum`, { metric: "LCP", value: 1 })).status).toBe(202);
  });
});

describe("browser telemetry", () => {
  it("accepts single samples and batches (202) and exports count, mean, p75 and latest per metric and path", async () => {
    const { url } = await serve();
    const one = await post(`${url}/api/health/rum`, {
      metric: "LCP",
      value: 100,
      path: "/runs?x=1",
      rating: "good",
    });
    expect(one.status).toBe(202);
    expect(await one.json()).toEqual({ accepted: 1, samples_total: 1 });
    const batch = await post(`${url}/api/health/rum`, {
      samples: [200, 300, 400].map((value, i) => ({
        metric: "LCP",
        value,
        path: "/runs",
        timestamp_ms: 1_000 + i,
      })),
    });
    expect(await batch.json()).toEqual({ accepted: 3, samples_total: 4 });
    await post(`${url}/api/health/rum`, { metric: "CLS", value: 0.05 });

    const text = await (await fetch(`${url}/api/metrics`)).text();
    expect(text).toContain('vetted_rum_count{metric="LCP",path="/runs"} 4');
    expect(text).toContain('vetted_rum_mean{metric="LCP",path="/runs"} 250');
    expect(text).toContain('vetted_rum_p75{metric="LCP",path="/runs"} 300');
    // The batch's timestamps are older than the first sample's arrival: latest is the newest taken.
    expect(text).toContain('vetted_rum_latest{metric="LCP",path="/runs"} 100');
    expect(text).toContain('vetted_rum_count{metric="CLS",path="(none)"} 1');
  });

  it("refuses an unknown metric, a negative value and an oversized batch with 422 TELEMETRY_INVALID, storing nothing", async () => {
    const { url } = await serve();
    for (const body of [
      { metric: "FID", value: 1 },
      { metric: "LCP", value: -1 },
      {
        samples: [
          { metric: "LCP", value: 1 },
          { metric: "INP", value: -5 },
        ],
      },
      { samples: Array.from({ length: 101 }, () => ({ metric: "LCP", value: 1 })) },
    ]) {
      const res = await post(`${url}/api/health/rum`, body);
      expect(res.status).toBe(422);
      expect(((await json(res)).error as { code: string }).code).toBe("TELEMETRY_INVALID");
    }
    const text = await (await fetch(`${url}/api/metrics`)).text();
    expect(text).not.toContain("vetted_rum_count{");
  });
});

describe("trace ids and security headers", () => {
  it("echoes X-Request-Id and X-Trace-Id, takes the trace id of a W3C traceparent, and generates both otherwise", async () => {
    const { url } = await serve();
    const echoed = await fetch(`${url}/api/health`, {
      headers: { "X-Request-Id": "req-1", "X-Trace-Id": "trace-1" },
    });
    expect(echoed.headers.get("x-request-id")).toBe("req-1");
    expect(echoed.headers.get("x-trace-id")).toBe("trace-1");
    const parent = await fetch(`${url}/api/nope`, {
      headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
    });
    expect(parent.status).toBe(404);
    expect(parent.headers.get("x-trace-id")).toBe("4bf92f3577b34da6a3ce929d0e0e4736");
    const fresh = await fetch(`${url}/api/health`);
    expect(fresh.headers.get("x-trace-id")).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.headers.get("x-request-id")).toBeTruthy();
  });

  it("sends trace and security headers on every route family of the OpenAPI document", async () => {
    const { url } = await serve();
    const doc = (await json(await fetch(`${url}/api/openapi.json`))) as { paths: Record<string, unknown> };
    const paths = Object.keys(doc.paths).map((p) => p.replaceAll(/\{[^}]+\}/g, "x"));
    expect(paths.length).toBeGreaterThan(30);
    for (const path of [...paths, "/api/docs", "/", "/some/console/route"]) {
      const res = await fetch(`${url}${path}`);
      await res.body?.cancel();
      const h = res.headers;
      const where = `${path} (${res.status})`;
      expect(h.get("x-request-id"), where).toBeTruthy();
      expect(h.get("x-trace-id"), where).toBeTruthy();
      expect(h.get("x-content-type-options"), where).toBe("nosniff");
      expect(h.get("x-frame-options"), where).toBe("DENY");
      expect(h.get("referrer-policy"), where).toBe("same-origin");
      const console = !path.startsWith("/api/") || path === "/api/docs";
      expect(h.get("content-security-policy"), where).toBe(console ? CONSOLE_CSP : API_CSP);
      if (path.startsWith("/api/") && h.get("content-type")?.includes("json")) {
        expect(h.get("cache-control"), where).toBe("no-store");
      }
    }
  }, 60_000);
});

describe("rate limits", () => {
  it("answers 429 RATE_LIMITED with Retry-After past the per-minute limit, per route family, counted in metrics", async () => {
    const { url } = await serve(
      {},
      {},
      {},
      {},
      { health: { rateLimitPerMinute: 5, rateLimitAnonPerMinute: 100 } },
    );
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await fetch(`${url}/api/flows`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await fetch(`${url}/api/flows`);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // At most the rest of this minute plus the share of the next one the previous minute's weight needs.
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60 + 60 / 5);
    expect(((await json(refused)).error as { code: string }).code).toBe("RATE_LIMITED");
    expect(refused.headers.get("x-request-id")).toBeTruthy();
    // Another family has its own window.
    expect((await fetch(`${url}/api/templates`)).status).toBe(200);
    for (let i = 0; i < 4; i++) await fetch(`${url}/api/templates`);
    const text = await (await fetch(`${url}/api/health`)).text();
    expect(text).toContain("ok");
    const metrics = await fetch(`${url}/api/metrics`);
    expect(await metrics.text()).toContain('vetted_rate_limited_total{family="flows",anonymous="false"} 2');
  });

  it("applies the anonymous limit to the open routes when a token is configured, and not to token holders", async () => {
    const { url } = await serve(
      { apiToken: TOKEN },
      {},
      {},
      {},
      {
        health: { rateLimitPerMinute: 50, rateLimitAnonPerMinute: 3 },
      },
    );
    const anon: number[] = [];
    for (let i = 0; i < 4; i++)
      anon.push((await post(`${url}/api/health/rum`, { metric: "INP", value: 10 })).status);
    expect(anon).toEqual([202, 202, 202, 429]);
    // /api/health is the same family ("health"): its anonymous window is used up too.
    expect((await fetch(`${url}/api/health`)).status).toBe(429);
    const withToken = await post(
      `${url}/api/health/rum`,
      { metric: "INP", value: 10 },
      { Authorization: `Bearer ${TOKEN}` },
    );
    expect(withToken.status).toBe(202);
  });
});
