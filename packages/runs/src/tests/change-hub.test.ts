import { afterEach, describe, expect, it } from "vitest";
import type { RunChange } from "../domain/run-change.js";
import { openSecondEngine, openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function collect() {
  const seen: RunChange[] = [];
  return { seen, listener: (batch: RunChange[]) => seen.push(...batch) };
}

const summary = (changes: RunChange[]) => changes.map((c) => [c.run_id, c.type, c.from, c.status]);

describe("the run-list change hub", () => {
  it("delivers this engine's commits at once, a late subscriber's backlog, and agrees with listChanges", async () => {
    // A catch-up interval of a minute: whatever arrives within the test came from the engine's own commits.
    const t = await openTestEngine({ catchUpMs: 60_000 });
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
    const head = await t.engine.changesHead();
    const a = collect();
    t.engine.subscribeChanges(head, a.listener);
    const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
    await waitFor(
      async () => a.seen.length,
      (n) => n === 1,
    );
    t.engine.start();
    await waitFor(
      async () => a.seen.map((c) => c.status),
      (s) => s.includes("waiting_user"),
    );
    const created = a.seen[0]?.id ?? 0;
    const b = collect();
    t.engine.subscribeChanges(created, b.listener);
    await t.engine.resumeRun(run.id, { kind: "approval", approved: true });
    await waitFor(
      async () => b.seen.map((c) => c.status),
      (s) => s.includes("success"),
    );
    expect(summary(a.seen.slice(0, 3))).toEqual([
      [run.id, "run_created", null, "queued"],
      [run.id, "status_changed", "queued", "running"],
      [run.id, "status_changed", "running", "waiting_user"],
    ]);
    // Each change starts where the one before ended, up to the run's success: none is missed.
    expect(a.seen.slice(1).map((c) => c.from)).toEqual(a.seen.slice(0, -1).map((c) => c.status));
    expect(a.seen[a.seen.length - 1]?.status).toBe("success");
    expect(b.seen).toEqual(a.seen.slice(1));
    expect(await t.engine.listChanges(head, 500)).toEqual(a.seen);
    expect(await t.engine.listChanges(created, 2)).toEqual(a.seen.slice(1, 3));
    const ids = a.seen.map((c) => c.id);
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(await t.engine.changesHead()).toBeGreaterThanOrEqual(ids[ids.length - 1] ?? 0);
  });

  it("finds the changes another process committed with its catch-up query", async () => {
    const t = await openTestEngine({ catchUpMs: 100 });
    cleanups.push(t.close);
    const other = await openSecondEngine(t.file);
    cleanups.push(other.close);
    const flow = await t.engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
    const a = collect();
    t.engine.subscribeChanges(await t.engine.changesHead(), a.listener);
    // Only the other engine writes and works: this engine's hub hears of it through the catch-up query.
    const run = await other.engine.createRun({ flow_id: flow.id, params: {} });
    other.engine.start();
    await waitFor(
      async () => a.seen.map((c) => c.status),
      (s) => s.includes("waiting_user"),
    );
    expect(summary(a.seen)).toEqual([
      [run.id, "run_created", null, "queued"],
      [run.id, "status_changed", "queued", "running"],
      [run.id, "status_changed", "running", "waiting_user"],
    ]);
  });
});
