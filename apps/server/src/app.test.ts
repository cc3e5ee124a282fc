import { createRoute, z } from "@hono/zod-openapi";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, LOCAL, type TestApp } from "./tests/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** Adds a small validated route, the way every route family is written, to exercise the shared machinery. */
async function appWithEchoRoute(config: Parameters<typeof createTestApp>[0] = {}) {
  t = await createTestApp(config);
  const echo = createRoute({
    method: "post",
    path: "/api/echo",
    request: {
      body: {
        content: {
          "application/json": { schema: z.object({ name: z.string().min(1), count: z.number().int() }) },
        },
      },
    },
    responses: {
      200: {
        description: "echo",
        content: { "application/json": { schema: z.object({ name: z.string() }) } },
      },
    },
  });
  t.app.openapi(echo, (c) => c.json({ name: c.req.valid("json").name }, 200));
  t.app.get("/api/boom", () => {
    throw new Error("secret internal detail");
  });
  return t.app;
}

async function errorOf(res: Response) {
  const body = (await res.json()) as {
    error: { code: string; message: string; details?: unknown; request_id: string };
  };
  return body.error;
}

describe("health", () => {
  it("answers /healthz with status, version and database reachability", async () => {
    t = await createTestApp();
    const res = await t.app.request("/healthz", { headers: LOCAL });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "ok", version: "0.0.0-test", database: { ok: true, kind: "file" } });
  });

  it("answers /api/health the same way", async () => {
    t = await createTestApp();
    const res = await t.app.request("/api/health", { headers: LOCAL });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
  });

  it("reports 503 degraded when the database is gone", async () => {
    t = await createTestApp();
    t.deps.database.close();
    const res = await t.app.request("/healthz", { headers: LOCAL });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "degraded", database: { ok: false } });
  });
});

describe("error envelope", () => {
  it("answers an unknown route with 404 NOT_FOUND and a request id", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/nope", { headers: LOCAL });
    expect(res.status).toBe(404);
    const error = await errorOf(res);
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain("/api/nope");
    expect(error.request_id).toBe(res.headers.get("X-Request-Id"));
  });

  it("echoes a client's X-Request-Id", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/nope", { headers: { ...LOCAL, "X-Request-Id": "req-abc-123" } });
    expect(res.headers.get("X-Request-Id")).toBe("req-abc-123");
    expect((await errorOf(res)).request_id).toBe("req-abc-123");
  });

  it("answers a wrong method with 405 and an Allow header", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/health", { method: "DELETE", headers: LOCAL });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toContain("GET");
    expect((await errorOf(res)).code).toBe("METHOD_NOT_ALLOWED");
  });

  it("answers malformed JSON with 400 INVALID_JSON", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/echo", {
      method: "POST",
      headers: { ...LOCAL, "Content-Type": "application/json" },
      body: '{"name": "x",',
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("INVALID_JSON");
  });

  it("answers a schema failure with 400 VALIDATION_FAILED and every zod issue as details", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/echo", {
      method: "POST",
      headers: { ...LOCAL, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "", count: 1.5 }),
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toMatchObject({
      issues: [
        { in: "body", pointer: "/name", code: "too_small" },
        { in: "body", pointer: "/count" },
      ],
    });
  });

  it("answers a body over the limit with 413 PAYLOAD_TOO_LARGE", async () => {
    const app = await appWithEchoRoute({ maxBodyBytes: 2048 });
    const res = await app.request("/api/echo", {
      method: "POST",
      headers: { ...LOCAL, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "x".repeat(5000), count: 1 }),
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers a non-JSON body with 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/echo", {
      method: "POST",
      headers: { ...LOCAL, "Content-Type": "text/plain" },
      body: "name=x",
    });
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("answers an unexpected error with a bare 500 that leaks nothing", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/boom", { headers: LOCAL });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({
      error: { code: "INTERNAL_ERROR", message: "Internal server error." },
    });
  });
});

describe("security defaults", () => {
  const token = "a-very-long-test-token-123";

  it("requires the bearer token on /api routes when one is configured", async () => {
    const app = await appWithEchoRoute({ apiToken: token });
    const without = await app.request("/api/runs", { headers: LOCAL });
    expect(without.status).toBe(401);
    expect((await errorOf(without)).code).toBe("UNAUTHORIZED");
    const wrong = await app.request("/api/runs", {
      headers: { ...LOCAL, Authorization: "Bearer nope" },
    });
    expect(wrong.status).toBe(401);
    const right = await app.request("/api/runs", {
      headers: { ...LOCAL, Authorization: `Bearer ${token}` },
    });
    expect(right.status).toBe(200);
  });

  it("keeps health open when a token is configured", async () => {
    const app = await appWithEchoRoute({ apiToken: token });
    expect((await app.request("/api/health", { headers: LOCAL })).status).toBe(200);
    expect((await app.request("/healthz", { headers: LOCAL })).status).toBe(200);
  });

  it("refuses a foreign Host header (DNS rebinding)", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/healthz", { headers: { Host: "evil.example:8787" } });
    expect(res.status).toBe(403);
    expect((await errorOf(res)).code).toBe("FORBIDDEN_HOST");
    expect((await app.request("/healthz", { headers: { Host: "localhost:8787" } })).status).toBe(200);
    expect((await app.request("/healthz", { headers: { Host: "[::1]:8787" } })).status).toBe(200);
  });

  it("accepts a host listed in VETTED_ALLOWED_HOSTS", async () => {
    const app = await appWithEchoRoute({ allowedHosts: ["vetted.internal"] });
    expect((await app.request("/healthz", { headers: { Host: "vetted.internal" } })).status).toBe(200);
  });

  it("refuses a cross-origin state-changing request unless the origin is configured", async () => {
    const body = JSON.stringify({ name: "x", count: 1 });
    const headers = { ...LOCAL, "Content-Type": "application/json" };
    const app = await appWithEchoRoute({ corsOrigins: ["http://127.0.0.1:5173"] });
    const foreign = await app.request("/api/echo", {
      method: "POST",
      headers: { ...headers, Origin: "http://evil.example" },
      body,
    });
    expect(foreign.status).toBe(403);
    expect((await errorOf(foreign)).code).toBe("FORBIDDEN_ORIGIN");
    const configured = await app.request("/api/echo", {
      method: "POST",
      headers: { ...headers, Origin: "http://127.0.0.1:5173" },
      body,
    });
    expect(configured.status).toBe(200);
    const same = await app.request("/api/echo", {
      method: "POST",
      headers: { ...headers, Origin: "http://127.0.0.1:8787" },
      body,
    });
    expect(same.status).toBe(200);
  });
});

describe("API description", () => {
  it("serves an OpenAPI 3.1 document generated from the route schemas", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/openapi.json", { headers: LOCAL });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/api/health"]));
  });

  it("serves an interactive reference page at /api/docs", async () => {
    const app = await appWithEchoRoute();
    const res = await app.request("/api/docs", { headers: LOCAL });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(await res.text()).toContain('src="/api/docs/assets/vetted-docs.js"');
    const init = await app.request("/api/docs/assets/vetted-docs.js", { headers: LOCAL });
    expect(await init.text()).toContain("/api/openapi.json");
  });
});
