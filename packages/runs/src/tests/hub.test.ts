import type { InStatement, ResultSet } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import type { RunEvent } from "../domain/run.js";
import { openSecondEngine, openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function collect() {
  const seen: RunEvent[] = [];
  let batches = 0;
  return {
    seen,
    batches: () => batches,
    listener: (batch: RunEvent[]) => {
      batches += 1;
      seen.push(...batch);
    },
  };
}

describe("the event hub", () => {
  it("delivers the backlog after Last-Event-ID, then each commit of this engine at once (no catch-up needed)", async () => {
    // A catch-up interval of a minute: whatever arrives within the test came from the engine's own commits.
    const t = await openTestEngine({ catchUpMs: 60_000 });
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
    const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
    const a = collect();
    const b = collect();
    const stopA = t.engine.subscribe(run.id, 0, a.listener);
    await waitFor(
      async () => a.seen.length,
      (n) => n === 1,
    );
    expect(a.seen.map((e) => [e.id, e.type])).toEqual([[1, "run_created"]]);
    t.engine.start();
    await waitFor(
      async () => a.seen.map((e) => e.type),
      (types) => types.includes("gate_opened"),
    );
    // A late subscriber that saw event 1 gets the rest of the backlog, then follows along.
    t.engine.subscribe(run.id, 1, b.listener);
    await t.engine.resumeRun(run.id, { kind: "approval", approved: true });
    await waitFor(
      async () => a.seen.map((e) => e.type),
      (types) => types.includes("gate_resolved"),
    );
    await waitFor(
      async () => b.seen.length,
      (n) => n === a.seen.length - 1,
    );
    expect(b.seen).toEqual(a.seen.slice(1));
    expect(a.seen.map((e) => e.id)).toEqual(a.seen.map((_, i) => i + 1));
    stopA();
    const log = await t.engine.listEvents(run.id, { limit: 500 });
    expect(a.seen).toEqual(log.items);
  });

  it("hands this engine's committed events to subscribers as committed, without reading them back", async () => {
    const t = await openTestEngine({ catchUpMs: 60_000, pollMs: 10 });
    cleanups.push(t.close);
    // Every statement that reads the event log, counted where the driver receives it.
    let eventReads = 0;
    const execute = t.client.execute.bind(t.client) as (stmt: InStatement) => Promise<ResultSet>;
    t.client.execute = ((stmt: InStatement) => {
      const text = typeof stmt === "string" ? stmt : stmt.sql;
      if (/^select .* from "runs_events"/i.test(text)) eventReads += 1;
      return execute(stmt);
    }) as typeof t.client.execute;
    const flow = await t.engine.createFlow({
      name: "five waits",
      steps: ["a", "b", "c", "d", "e"].map((id) => ({ id, type: "wait" as const, seconds: 0 })),
    });
    const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
    const a = collect();
    t.engine.subscribe(run.id, 0, a.listener);
    await waitFor(
      async () => a.seen.length,
      (n) => n === 1,
    );
    const backlogReads = eventReads;
    t.engine.start();
    await waitFor(
      async () => a.seen.filter((e) => e.type === "step_finished" || e.type === "status_changed").length,
      (n) => n === 7,
    );
    expect(a.seen.at(-1)?.data).toMatchObject({ to: "success" });
    // The subscription read its backlog; the run's 5 steps after it came without another read.
    expect(backlogReads).toBe(1);
    expect(eventReads).toBe(backlogReads);
    // In order, once each, exactly as stored.
    expect(a.seen.map((e) => e.id)).toEqual(a.seen.map((_, i) => i + 1));
    expect(a.seen).toEqual((await t.engine.listEvents(run.id, { limit: 500 })).items);
  });

  it("finds events another process committed with one catch-up query for every watched run", async () => {
    const t = await openTestEngine({ catchUpMs: 100 });
    cleanups.push(t.close);
    const other = await openSecondEngine(t.file);
    cleanups.push(other.close);
    const flow = await t.engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
    const first = await t.engine.createRun({ flow_id: flow.id, params: {} });
    const second = await t.engine.createRun({ flow_id: flow.id, params: {} });
    const a = collect();
    const b = collect();
    t.engine.subscribe(first.id, 0, a.listener);
    t.engine.subscribe(second.id, 0, b.listener);
    // Only the other engine works: this engine's hub hears of its commits through the catch-up query.
    other.engine.start();
    await waitFor(
      async () => [...a.seen, ...b.seen].filter((e) => e.type === "gate_opened").length,
      (n) => n === 2,
    );
    await other.engine.resumeRun(first.id, { kind: "approval", approved: false });
    await waitFor(
      async () => a.seen.map((e) => e.type),
      (types) => types.includes("gate_resolved"),
    );
    expect(a.seen).toEqual((await t.engine.listEvents(first.id)).items);
  });
});
