import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createEmbeddings,
  createLocalEmbedder,
  createOpenAiCompatibleEmbedder,
} from "@vetted/runs/embeddings";
import { afterEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "./tests/test-app.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** An OpenAI-compatible server on 127.0.0.1: `ok` answers vectors, `fail` a 500, `slow` nothing for 2 s. */
async function upstream(mode: "ok" | "fail" | "slow"): Promise<string> {
  const server: Server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const input = (JSON.parse(text) as { input: string[] }).input;
    if (mode === "fail") {
      res.statusCode = 500;
      res.end('{"error":"boom"}');
    } else if (mode === "slow") {
      setTimeout(() => res.end("{}"), 2000);
    } else {
      res.end(JSON.stringify({ data: input.map((_, index) => ({ index, embedding: [1, 2, 2] })) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function appWith(mode: "ok" | "fail" | "slow"): Promise<TestApp> {
  const remote = createOpenAiCompatibleEmbedder({
    url: await upstream(mode),
    model: "remote",
    // Short only where the timeout is the point: a loaded machine may take longer than that to answer a 500.
    timeoutMs: mode === "slow" ? 300 : 10_000,
  });
  // The local model is listed but never loaded here: only its name is used.
  const embeddings = createEmbeddings([createLocalEmbedder(), remote]);
  const t = await createTestApp({}, {}, {}, {}, { embeddings });
  cleanups.push(t.close);
  return t;
}

function batch(t: TestApp, body: unknown) {
  return t.app.request("/api/embeddings/batch", {
    method: "POST",
    headers: { Host: "127.0.0.1", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("POST /api/embeddings/batch", () => {
  it("answers the vectors of a remote model", async () => {
    const t = await appWith("ok");
    const res = await batch(t, { texts: ["a", "b"], model: "remote" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      model: string;
      vector_count: number;
      dimension: number;
      vectors: number[][];
    };
    expect(body).toMatchObject({ model: "remote", vector_count: 2, dimension: 3 });
    expect(body.vectors[0]?.[0]).toBeCloseTo(1 / 3, 5);
  });

  it("answers 422 for blank texts, control characters and an unknown model (naming the available ones)", async () => {
    const t = await appWith("ok");
    for (const texts of [["  "], ["a\u0000"], []]) {
      const res = await batch(t, { texts, model: "remote" });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("REQUEST_INVALID");
    }
    const unknown = await batch(t, { texts: ["a"], model: "gpt-9" });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({
      error: { code: "MODEL_UNKNOWN", details: { available: ["local", "remote"] } },
    });
    expect((await batch(t, { texts: "a" })).status).toBe(400);
  });

  it("answers 502 UPSTREAM_FAILED with the upstream status, and 504 when the upstream is too slow", async () => {
    const failing = await appWith("fail");
    const res = await batch(failing, { texts: ["a"], model: "remote" });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { code: "UPSTREAM_FAILED", details: { status: 500 } } });
    const slow = await appWith("slow");
    const late = await batch(slow, { texts: ["a"], model: "remote" });
    expect(late.status).toBe(504);
    expect(await late.json()).toMatchObject({ error: { code: "UPSTREAM_TIMEOUT" } });
  });
});
