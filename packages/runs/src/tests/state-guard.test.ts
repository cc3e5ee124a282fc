import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { persist, readRun } from "../core/persist.js";
import { createResources } from "../core/resources.js";
import { stateOf } from "../core/views.js";
import { cancelRun } from "../domain/transitions.js";
import { runs } from "../store/schema.js";
import { openTestEngine, TEST_SECRETS_KEY, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A run paused at an approval gate (the engine stopped), and bare resources over the same database. */
async function waitingRun() {
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
  const r = createResources({ db: t.db, secretsKey: TEST_SECRETS_KEY });
  return { t, r, runId: run.id };
}

describe("the run writes' status guard, read from the state table", () => {
  it("never writes a run that ended, even when the write's version holds", async () => {
    const { t, r, runId } = await waitingRun();
    await t.engine.cancelRun(runId);
    const row = await readRun(t.db, runId);
    expect(row.status).toBe("cancelled");
    // Hand-made transitions (not through moveTo) out of a terminal status: the table has no such edge.
    for (const status of ["queued", "running", "failed"] as const) {
      const illegal = { state: { ...stateOf(row), status, version: row.version + 1 }, events: [] };
      expect(await r.write((tx) => persist(r, tx, row, illegal, r.now()))).toBeUndefined();
    }
    const [after] = await t.db.select().from(runs).where(eq(runs.id, runId));
    expect(after).toMatchObject({ status: "cancelled", version: row.version });
  });

  it("writes a move the table allows", async () => {
    const { t, r, runId } = await waitingRun();
    const row = await readRun(t.db, runId);
    const cancel = cancelRun(stateOf(row));
    if (cancel === undefined) throw new Error("a waiting run can be cancelled");
    const written = await r.write((tx) => persist(r, tx, row, cancel, r.now()));
    expect(written?.status).toBe("cancelled");
  });
});
