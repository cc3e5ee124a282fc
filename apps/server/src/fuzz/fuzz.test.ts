import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FuzzServer, startFuzzServer } from "./fuzz-server.js";
import { listOperations } from "./openapi-operations.js";
import { describeFailure, judge, runFuzz } from "./runner.js";

/** The quick profile of `pnpm fuzz`: a few hundred requests; `VETTED_FUZZ_SEED` replays another sample. */
const QUICK_COUNT = 400;
const SEED = Number(process.env.VETTED_FUZZ_SEED ?? 20_269);

let target: FuzzServer;

beforeAll(async () => {
  target = await startFuzzServer();
}, 120_000);

afterAll(async () => {
  await target?.close();
});

describe("the fuzzer", { timeout: 60_000 }, () => {
  it("reads every operation of the live OpenAPI document", () => {
    const operations = listOperations(target.doc);
    expect(operations.length).toBeGreaterThanOrEqual(60);
    expect(operations.map((op) => `${op.method} ${op.path}`)).toContain("GET /api/jobs/{job_id}/audit");
    expect(operations.find((op) => op.path === "/api/runs/{run_id}/events/stream")?.streams).toBe(true);
  });

  it("judges a 5xx, an error without the envelope and a missing answer as failures", () => {
    const envelope = JSON.stringify({ error: { code: "NOT_FOUND", message: "no", request_id: "r" } });
    expect(judge(404, envelope)).toBe(true);
    expect(judge(200, "anything")).toBe(true);
    expect(judge(500, envelope)).toBe(false);
    expect(judge(400, "")).toBe(false);
    expect(judge(400, '{"error":{"code":"X"}}')).toBe(false);
    expect(judge("no-answer", "")).toBe(false);
  });

  it(`answers ${QUICK_COUNT} malformed and hostile requests with no 5xx and every error in the envelope`, async () => {
    const report = await runFuzz({
      baseUrl: target.url,
      doc: target.doc,
      context: target.context,
      count: QUICK_COUNT,
      seed: SEED,
      // One at a time, so the same seed replays the same sequence against the same state.
      concurrency: 1,
    });
    expect(report.count).toBe(QUICK_COUNT);
    expect(report.failures.map(describeFailure)).toEqual([]);
    // Both kinds of answer occur: the sample reaches handlers, not only the validators.
    expect(Object.keys(report.tallies).some((status) => status.startsWith("2"))).toBe(true);
    expect(Object.keys(report.tallies).some((status) => status.startsWith("4"))).toBe(true);
  });
});
