import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient } from "@libsql/client";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { bundledChild } from "../../../../tools/test-child.js";
import { createResources } from "../core/resources.js";
import { stateOf } from "../core/views.js";
import { Leases } from "../core/worker.js";
import { completeStep } from "../domain/transitions.js";
import { events, runs } from "../store/schema.js";
import { openTestEngine, TEST_SECRETS_KEY, waitFor } from "./harness.js";

/*
 * Race tests that see the guards: every contender has its own connection to one database file (or its
 * own process), so the in-process write lock cannot hide a missing compare-and-set.
 */

const here = dirname(fileURLToPath(import.meta.url));
/** The child scripts run from bundles (node alone, no TypeScript loader), each still its own process. */
const packageDir = join(here, "..", "..");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface ChildResult {
  won: number;
  codes: Record<string, number>;
}

/** A child process with its own engine over `file`, ready to fire `count` resumes of `runId` on `go`. */
async function resumer(file: string, runId: string, count: number) {
  const child: ChildProcess = spawn(
    process.execPath,
    [await bundledChild(packageDir, join(here, "race-child.ts")), file, runId, String(count)],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  cleanups.push(() => {
    if (child.exitCode === null) child.kill();
  });
  const stdout = child.stdout;
  if (stdout === null) throw new Error("no stdout");
  const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
  const ready = await lines.next();
  expect(ready.value).toBe("ready");
  return {
    go: () => child.stdin?.write("go\n"),
    result: async (): Promise<ChildResult> => JSON.parse(String((await lines.next()).value)) as ChildResult,
  };
}

/** A second, bare set of engine resources (own connection, own worker id) over `file`. */
function contender(file: string, clockOffsetMs = 0) {
  const client = createClient({ url: `file:${file}`, timeout: 5000 });
  cleanups.push(() => client.close());
  const r = createResources({
    db: drizzle(client),
    secretsKey: TEST_SECRETS_KEY,
    leaseMs: 1000,
    clock: { now: () => Date.now() + clockOffsetMs },
  });
  return { r, leases: new Leases(r) };
}

/** A test engine (closed after the test) with one queued run of a flow that waits 5 s, not started. */
async function queuedSlowRun() {
  const t = await openTestEngine();
  cleanups.push(t.close);
  const flow = await t.engine.createFlow({
    name: "slow",
    steps: [{ id: "pause", type: "wait", seconds: 5 }],
  });
  const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
  return { t, run };
}

describe("race guards, across connections and processes", { timeout: 60_000 }, () => {
  it("lets exactly one of 50 resumes split across two processes win; the others get RUN_NOT_WAITING", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({ name: "gate", steps: [{ id: "ok", type: "approval_gate" }] });
    const run = await t.engine.createRun({ flow_id: flow.id, params: {} });
    t.engine.start();
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "waiting_user",
    );
    await t.engine.stop();
    const [a, b] = await Promise.all([resumer(t.file, run.id, 25), resumer(t.file, run.id, 25)]);
    a.go();
    b.go();
    const results = await Promise.all([a.result(), b.result()]);
    const won = results.reduce((n, r) => n + r.won, 0);
    const lost: Record<string, number> = {};
    for (const r of results)
      for (const [code, n] of Object.entries(r.codes)) lost[code] = (lost[code] ?? 0) + n;
    expect(won).toBe(1);
    expect(lost).toEqual({ "RunStateError:RUN_NOT_WAITING": 49 });
    const log = await t.db.select().from(events).where(eq(events.runId, run.id));
    expect(log.filter((e) => e.type === "gate_resolved")).toHaveLength(1);
  });

  it("lets exactly one of two workers on two connections claim a queued run both found", async () => {
    const { t, run } = await queuedSlowRun();
    const one = contender(t.file);
    const two = contender(t.file);
    const at = Date.now();
    // Both read the same candidate before either claims: the claim itself must refuse the second.
    expect(await one.leases.findClaimable(at)).toBe(run.id);
    expect(await two.leases.findClaimable(at)).toBe(run.id);
    const first = await one.leases.claimById(run.id, at);
    const second = await two.leases.claimById(run.id, at);
    expect(first?.leaseOwner?.startsWith(`${one.r.workerId}#`)).toBe(true);
    expect(second).toBeUndefined();
    const log = await t.db.select().from(events).where(eq(events.runId, run.id));
    expect(log.filter((e) => e.type === "status_changed" && e.data.to === "running")).toHaveLength(1);
    const [row] = await t.db.select().from(runs).where(eq(runs.id, run.id));
    expect(row?.leaseOwner).toBe(first?.leaseOwner);
  });

  it("keeps a stale lease owner from writing its step result once another worker took the lease over", async () => {
    const { t, run } = await queuedSlowRun();
    const stale = contender(t.file);
    // The second worker's clock runs past the first one's lease, as if the first had stalled.
    const taker = contender(t.file, 5000);
    const mine = await stale.leases.claimById(run.id, Date.now());
    if (mine === undefined) throw new Error("the first worker did not claim the run");
    const theirs = await taker.leases.claimById(run.id, taker.r.now());
    expect(theirs?.leaseOwner?.startsWith(`${taker.r.workerId}#`)).toBe(true);
    // The stale worker finishes its step and tries to record the result: nothing lands, nothing throws.
    const finished = completeStep(stateOf(mine), mine.steps, { kind: "completed" }, 5);
    expect(await stale.leases.commit(mine, finished)).toBeUndefined();
    expect(
      await stale.leases.recordStepStart(
        mine,
        mine.steps[0] ?? { id: "pause", type: "wait", seconds: 5 },
        false,
      ),
    ).toBeUndefined();
    const [row] = await t.db.select().from(runs).where(eq(runs.id, run.id));
    expect(row).toMatchObject({
      status: "running",
      leaseOwner: theirs?.leaseOwner,
      version: theirs?.version,
    });
    const log = await t.db.select().from(events).where(eq(events.runId, run.id));
    expect(log.map((e) => e.type)).not.toContain("step_finished");
  });
});
