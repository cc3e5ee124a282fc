import { afterEach, describe, expect, it } from "vitest";
import type { RunsEngineOptions } from "../platform.js";
import { openTestEngine, waitFor } from "./harness.js";
import type { SinkHandler } from "./sink.js";
import { startSink } from "./sink.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function runAgainst(handler: SinkHandler, options: Partial<RunsEngineOptions> = {}) {
  const sink = await startSink(handler);
  const t = await openTestEngine(options);
  cleanups.push(t.close, sink.close);
  const flow = await t.engine.createFlow({
    name: "fetch",
    steps: [{ id: "get", type: "http", method: "POST", url: `${sink.url}/data`, extract: { v: "$.v" } }],
  });
  const tpl = await t.engine.createTemplate({ name: "retrying", flow_id: flow.id, policies: { retries: 3 } });
  const run = await t.engine.createRun({ template_id: tpl.id });
  t.engine.start();
  const done = await waitFor(
    () => t.engine.getRun(run.id),
    (r) => r.status !== "queued" && r.status !== "running",
    10_000,
  );
  return { done, sink };
}

describe("the response caps of http steps", () => {
  it("fails the step once with RESPONSE_TOO_DEEP for JSON nested 6,000 deep", async () => {
    const deep = `${'{"v":'.repeat(6_000)}1${"}".repeat(6_000)}`;
    const { done, sink } = await runAgainst((_req, res) => {
      res.statusCode = 500; // a 5xx would be retried: the refusal must not be
      res.end(deep);
    });
    expect(done.status).toBe("failed");
    expect(done.error).toContain("RESPONSE_TOO_DEEP");
    expect(sink.received).toHaveLength(1);
  });

  it("fails the step with RESPONSE_TOO_LARGE for a declared body over the cap", async () => {
    const { done, sink } = await runAgainst((_req, res) => void res.end("x".repeat(4096)), {
      maxResponseBytes: 1024,
    });
    expect(done.error).toContain("RESPONSE_TOO_LARGE");
    expect(sink.received).toHaveLength(1);
  });

  it("fails the step with RESPONSE_TOO_LARGE for a streamed body that grows past the cap", async () => {
    const { done, sink } = await runAgainst(
      (_req, res) => {
        res.setHeader("Transfer-Encoding", "chunked");
        const chunk = "y".repeat(512);
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed || sent++ > 1000) {
            clearInterval(timer);
            res.end();
          } else res.write(chunk);
        }, 1);
      },
      { maxResponseBytes: 2048 },
    );
    expect(done.error).toContain("RESPONSE_TOO_LARGE");
    expect(sink.received).toHaveLength(1);
  });

  it("reads a response under both caps", async () => {
    const { done } = await runAgainst((_req, res) => void res.end(JSON.stringify({ v: [[["ok"]]] })), {
      maxResponseBytes: 1024,
    });
    expect(done.status).toBe("success");
    expect(done.vars.v).toEqual([[["ok"]]]);
  });
});
