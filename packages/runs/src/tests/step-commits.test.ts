import { afterEach, describe, expect, it } from "vitest";
import { walCommits } from "../../../../tools/wal-commits.js";
import type { Step } from "../domain/steps.js";
import { openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/**
 * The commits (counted in the database's WAL file, not by the engine) a run of `steps` takes from its
 * creation to its end, with `resume` called at each pause.
 */
type Engine = Awaited<ReturnType<typeof openTestEngine>>["engine"];

async function commitsOf(
  steps: Step[],
  resume?: (engine: Engine, runId: string) => Promise<void>,
  prepare?: (t: Awaited<ReturnType<typeof openTestEngine>>) => Promise<void>,
) {
  const t = await openTestEngine({ leaseMs: 30_000 });
  cleanups.push(t.close);
  await prepare?.(t);
  const flow = await t.engine.createFlow({ name: "counted", steps });
  const before = walCommits(t.file);
  const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
  t.engine.start();
  for (;;) {
    const now = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "success" || r.status === "waiting_user" || r.status === "failed",
    );
    if (now.status !== "waiting_user" || resume === undefined) {
      expect(now.status).toBe("success");
      break;
    }
    await resume(t.engine, run.id);
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status !== "waiting_user",
    );
  }
  const log = await t.engine.listEvents(run.id);
  return { commits: walCommits(t.file) - before, log: log.items.map((e) => e.type) };
}

const ids = ["a", "b", "c", "d", "e"];

describe("write transactions per step", () => {
  it("a 5-step pure workflow commits its create and one claim (2 transactions)", async () => {
    const steps = ids.map((id, i) => ({ id, type: "set" as const, vars: { [id]: i } }));
    const { commits } = await commitsOf(steps);
    expect(commits).toBe(2);
  });

  it("a 5-step `wait` workflow commits ≤ 7 transactions: each step's start rides on the commit before it", async () => {
    // Create, claim + a's start, then each step's end with the next one's start (a separate start each
    // would be 12: create, claim, and a start and an end per step).
    const steps = ids.map((id) => ({ id, type: "wait" as const, seconds: 0 }));
    const { commits, log } = await commitsOf(steps);
    expect(log.filter((e) => e === "step_started")).toHaveLength(5);
    expect(log.filter((e) => e === "step_finished")).toHaveLength(5);
    expect(commits).toBeLessThanOrEqual(7);
  });

  it("a gate between timers: the resume's own commit claims the run and writes the next wait's start (5 transactions)", async () => {
    const steps: Step[] = [
      { id: "a", type: "set", vars: { a: 1 } },
      { id: "b", type: "wait", seconds: 0 },
      { id: "ok", type: "approval_gate", prompt: "Go on?" },
      { id: "c", type: "wait", seconds: 0 },
    ];
    // Create, claim + b's start, b's end + the gate's pause, the resume + its claim by this worker + c's
    // start, c's end (a claim of its own after the resume would be a sixth).
    const { commits, log } = await commitsOf(steps, async (engine, runId) => {
      await engine.resumeRun(runId, { kind: "approval", approved: true });
    });
    expect(log.filter((e) => e === "step_finished")).toHaveLength(3);
    expect(commits).toBe(5);
  });
});

describe("a transition's UPDATE", () => {
  it("names only the columns it changes: five `wait` steps never write vars, gate, secrets or wait context", async () => {
    // `AFTER UPDATE OF col` fires whenever an UPDATE names the column, even with the value it had.
    const watched = ["vars", "gate", "secrets", "wait_context", "cursor"];
    let client: Awaited<ReturnType<typeof openTestEngine>>["client"] | undefined;
    const steps = ids.map((id) => ({ id, type: "wait" as const, seconds: 0 }));
    await commitsOf(steps, undefined, async (t) => {
      client = t.client;
      await t.client.execute("CREATE TABLE column_writes (col TEXT NOT NULL)");
      for (const col of watched) {
        await t.client.execute(
          `CREATE TRIGGER written_${col} AFTER UPDATE OF ${col} ON runs_runs BEGIN INSERT INTO column_writes VALUES ('${col}'); END`,
        );
      }
    });
    const rows = await client?.execute("SELECT col, count(*) AS n FROM column_writes GROUP BY col");
    const written = Object.fromEntries((rows?.rows ?? []).map((r) => [String(r.col), Number(r.n)]));
    // The cursor moves once per step (the trigger works); the rest never change in this flow.
    expect(written).toEqual({ cursor: 5 });
  });
});
