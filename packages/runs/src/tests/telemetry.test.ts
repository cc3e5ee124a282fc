import { count } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { decideAlerts, severityFor } from "../domain/alerts.js";
import { MAX_RUM_PATHS, normalizeRumPath, percentile, RUM_OTHER_PATH } from "../domain/telemetry.js";
import { createTelemetry } from "../lanes/telemetry/index.js";
import { rumSamples } from "../store/schema.js";
import { openTestEngine } from "./harness.js";

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

async function open() {
  const t = await openTestEngine();
  opened.push(t);
  return t;
}

async function until(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("run health", () => {
  it("reports a running run as stuck once its worker lease has expired, and a gate about to expire", async () => {
    const t = await open();
    t.engine.start();
    const sleeper = await t.engine.createFlow({
      name: "s",
      steps: [{ id: "w", type: "wait", seconds: 120 }],
    });
    const gated = await t.engine.createFlow({
      name: "g",
      steps: [{ id: "ok", type: "approval_gate", prompt: "go?", timeout_seconds: 300 }],
    });
    const running = await t.engine.createRun({ flow_id: sleeper.id });
    const waiting = await t.engine.createRun({ flow_id: gated.id });
    await until(async () => (await t.engine.getRun(running.id)).status === "running");
    await until(async () => (await t.engine.getRun(waiting.id)).status === "waiting_user");

    const now = createTelemetry({ db: t.db });
    const health = await now.runHealth(3_600_000, 600_000);
    expect(health.stuckRunIds).toEqual([]);
    expect(health.leases.held).toBe(1);
    expect(health.expiringGateRunIds).toEqual([waiting.id]);
    expect(health.byStatus).toMatchObject({ running: 1, waiting_user: 1 });
    expect((await now.runHealth(3_600_000, 60_000)).expiringGateRunIds).toEqual([]);

    // Seen from 30 s later, the 1 s lease has run out: no worker executes the run any more.
    const later = createTelemetry({ db: t.db, clock: { now: () => Date.now() + 30_000 } });
    const stale = await later.runHealth(3_600_000, 600_000);
    expect(stale.stuckRunIds).toEqual([running.id]);
    expect(stale.leases).toEqual({ held: 0, expired: 1 });
  }, 60_000);

  it("counts runs finished in the window by outcome", async () => {
    const t = await open();
    t.engine.start();
    const bad = await t.engine.createFlow({
      name: "bad",
      steps: [{ id: "a", type: "assert", value: "x", matches: "^y$" }],
    });
    const run = await t.engine.createRun({ flow_id: bad.id });
    await until(async () => (await t.engine.getRun(run.id)).status === "failed");
    const telemetry = createTelemetry({ db: t.db });
    expect((await telemetry.runHealth(60_000, 0)).finishedInWindow).toEqual({
      success: 0,
      failed: 1,
      cancelled: 0,
    });
    const future = createTelemetry({ db: t.db, clock: { now: () => Date.now() + 120_000 } });
    expect((await future.runHealth(60_000, 0)).finishedInWindow).toEqual({
      success: 0,
      failed: 0,
      cancelled: 0,
    });
  }, 60_000);
});

describe("browser telemetry", () => {
  it("keeps the newest 500 samples per metric and path for the p75, while count and mean cover every sample", async () => {
    const t = await open();
    const telemetry = createTelemetry({ db: t.db });
    for (const value of [1, 9]) {
      for (let i = 0; i < 5; i++) {
        await telemetry.ingestRum({
          samples: Array.from({ length: 100 }, () => ({ metric: "TTFB", value, path: "/a" })),
        });
      }
    }
    const [agg] = await telemetry.listRumAggregates();
    expect(agg).toMatchObject({ metric: "TTFB", path: "/a", count: 1000, mean: 5, p75: 9, latest: 9 });
    const [kept] = await t.db.select({ n: count() }).from(rumSamples);
    expect(kept?.n).toBe(500);
  }, 60_000);

  it("folds paths past the per-metric cap into (other)", async () => {
    const t = await open();
    const telemetry = createTelemetry({ db: t.db });
    const samples = Array.from({ length: MAX_RUM_PATHS + 3 }, (_, i) => ({
      metric: "CLS" as const,
      value: 0.1,
      path: `/p${i}`,
    }));
    for (let i = 0; i < samples.length; i += 100)
      await telemetry.ingestRum({ samples: samples.slice(i, i + 100) });
    const aggregates = await telemetry.listRumAggregates();
    expect(aggregates).toHaveLength(MAX_RUM_PATHS + 1);
    expect(aggregates.find((a) => a.path === RUM_OTHER_PATH)?.count).toBe(3);
  }, 60_000);
});

describe("the pure rules", () => {
  it("computes the nearest-rank percentile and normalizes paths", () => {
    expect(percentile([], 75)).toBe(0);
    expect(percentile([4, 1, 3, 2], 75)).toBe(3);
    expect(percentile([5], 75)).toBe(5);
    expect(normalizeRumPath("https://x.test/runs/1?q=2#h")).toBe("/runs/1");
    expect(normalizeRumPath(undefined)).toBe("(none)");
  });

  it("raises a warning above the threshold and a critical alert above 1.5× it", () => {
    expect(severityFor(0.2, 0.2)).toBeUndefined();
    expect(severityFor(0.25, 0.2)).toBe("warning");
    expect(severityFor(0.31, 0.2)).toBe("critical");
    const alerts = decideAlerts({
      windowS: 3600,
      failureRateThreshold: 0.2,
      runs: { success: 3, failed: 1 },
      tasks: undefined,
      stuckRunIds: [],
      expiringGateRunIds: ["run_a"],
      gateHorizonS: 600,
      databaseOk: true,
    });
    expect(alerts.map((a) => [a.code, a.severity])).toEqual([
      ["RUN_FAILURE_RATE", "warning"],
      ["GATES_EXPIRING", "warning"],
    ]);
  });
});
