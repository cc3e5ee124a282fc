import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { TEST_CACHE_DIR } from "../../tests/harness.js";
import { dot } from "./embedder.js";
import { createLocalEmbedder } from "./local.js";
import { createOpenAiCompatibleEmbedder } from "./openai-compatible.js";
import { createEmbeddings } from "./service.js";

const local = createLocalEmbedder({ cacheDir: TEST_CACHE_DIR });

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => s.close(() => resolve()));
});

/** An OpenAI-compatible embeddings server on 127.0.0.1 answering with `handler`. */
async function upstream(
  handler: (body: { input: string[] }, res: import("node:http").ServerResponse) => void,
) {
  const server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    handler(JSON.parse(text) as { input: string[] }, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

function norm(v: Float32Array): number {
  return Math.sqrt(dot(v, v));
}

describe("the local embeddings model", () => {
  it("is deterministic, unit-length, 100-dimensional, and puts paying an invoice near settling a bill", async () => {
    const texts = ["pay the invoice", "settle the bill", "hike a mountain", "zzqxj unknownword"];
    const [a, b, c, d] = await local.embed(texts);
    const again = await local.embed(texts);
    if (a === undefined || b === undefined || c === undefined || d === undefined)
      throw new Error("missing vectors");
    expect(Array.from(again[0] ?? [])).toEqual(Array.from(a));
    for (const v of [a, b, c, d]) {
      expect(v).toHaveLength(100);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    expect(dot(a, b)).toBeGreaterThan(dot(a, c));
    expect(dot(a, b)).toBeGreaterThan(dot(b, c));
  }, 180_000);
});

/** The longest the event loop went without running a timer while `work` ran. */
async function longestStall<T>(work: () => Promise<T>): Promise<{ value: T; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 5);
  try {
    const value = await work();
    // The gap up to now counts too: a block at the very end is seen by no timer tick.
    return { value, stall: Math.max(stall, performance.now() - last) };
  } finally {
    clearInterval(timer);
  }
}

describe("the local model's worker thread", () => {
  it("embeds a large batch off the event loop, with the same vectors as on the calling thread", async () => {
    // 256 KB of words the table mostly lacks (each hashed): seconds of work on the calling thread.
    const texts = Array.from({ length: 32 }, (_, i) =>
      Array.from({ length: 1400 }, (_, j) => `w${(i * 7919 + j * 104_729) % 50_000} (a) 12.5%`)
        .join(" ")
        .slice(0, 8192),
    );
    await local.embed(["load the model first"]);
    const { value: threaded, stall } = await longestStall(() => local.embed(texts));
    // On the calling thread the same batch blocks the loop for seconds (the tokenizer alone).
    expect(stall).toBeLessThan(500);
    const inline = await createLocalEmbedder({ cacheDir: TEST_CACHE_DIR, thread: false }).embed(
      texts.slice(0, 3),
    );
    expect(threaded.slice(0, 3).map((v) => Array.from(v))).toEqual(inline.map((v) => Array.from(v)));
  }, 180_000);

  it("refuses texts past its queue with EMBEDDINGS_BUSY, and serves the batches it took", async () => {
    const bounded = createLocalEmbedder({ cacheDir: TEST_CACHE_DIR, maxQueuedTexts: 10 });
    const first = bounded.embed(Array(8).fill("a queued text"));
    await expect(bounded.embed(Array(8).fill("one batch too many"))).rejects.toMatchObject({
      code: "EMBEDDINGS_BUSY",
    });
    expect(await first).toHaveLength(8);
    expect(await bounded.embed(["room again"])).toHaveLength(1);
  }, 180_000);
});

describe("the embeddings service", () => {
  const service = createEmbeddings([local]);

  it("refuses blank texts, control characters, too many or too long texts with REQUEST_INVALID", async () => {
    for (const texts of [[], ["  "], ["a\u0007b"], Array(129).fill("x"), ["x".repeat(8193)]]) {
      await expect(service.embedBatch({ texts })).rejects.toMatchObject({ code: "REQUEST_INVALID" });
    }
  });

  it("names the available models when asked for an unknown one", async () => {
    await expect(service.embedBatch({ texts: ["a"], model: "gpt-x" })).rejects.toMatchObject({
      code: "MODEL_UNKNOWN",
      details: { available: ["local"] },
    });
  });
});

describe("the OpenAI-compatible model", () => {
  it("embeds through the upstream and normalises its vectors", async () => {
    const url = await upstream((body, res) => {
      const data = body.input.map((_, i) => ({ index: i, embedding: [3, 4 + i] }));
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ data: data.reverse() }));
    });
    const service = createEmbeddings([createOpenAiCompatibleEmbedder({ url, model: "remote" })]);
    const answer = await service.embedBatch({ texts: ["one", "two"] });
    expect(answer).toMatchObject({ model: "remote", vector_count: 2, dimension: 2 });
    expect(answer.vectors[0]?.[0]).toBeCloseTo(0.6, 5);
  });

  it("answers UPSTREAM_FAILED with the upstream status, and UPSTREAM_TIMEOUT when it is slow", async () => {
    const failing = await upstream((_, res) => {
      res.statusCode = 503;
      res.end("{}");
    });
    const embedder = createOpenAiCompatibleEmbedder({ url: failing, model: "remote" });
    await expect(embedder.embed(["a"])).rejects.toMatchObject({
      code: "UPSTREAM_FAILED",
      details: { status: 503 },
    });
    const slow = await upstream((_, res) => {
      setTimeout(() => res.end("{}"), 2000);
    });
    const late = createOpenAiCompatibleEmbedder({ url: slow, model: "remote", timeoutMs: 200 });
    await expect(late.embed(["a"])).rejects.toMatchObject({ code: "UPSTREAM_TIMEOUT" });
  });
});
