import { afterEach, describe, expect, it } from "vitest";
import { VersionConflictError } from "../kernel/errors.js";
import { openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function waitingRun() {
  const t = await openTestEngine();
  cleanups.push(t.close);
  t.engine.start();
  const flow = await t.engine.createFlow({ name: "f", steps: [{ id: "ok", type: "approval_gate" }] });
  const run = await t.engine.createRun({ flow_id: flow.id });
  const waiting = await waitFor(
    () => t.engine.getRun(run.id),
    (r) => r.status === "waiting_user",
  );
  return { engine: t.engine, waiting };
}

describe("cancelRun with expected_version", () => {
  it("refuses a stale version with VERSION_CONFLICT and leaves the run as it was", async () => {
    const { engine, waiting } = await waitingRun();
    const logged = (await engine.listEvents(waiting.id)).items.length;
    const stale = engine.cancelRun(waiting.id, { expected_version: waiting.version - 1 });
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    await expect(
      engine.cancelRun(waiting.id, { expected_version: waiting.version - 1 }),
    ).rejects.toMatchObject({
      code: "VERSION_CONFLICT",
      details: { status: "waiting_user", version: waiting.version },
    });
    const after = await engine.getRun(waiting.id);
    expect(after).toMatchObject({ status: "waiting_user", version: waiting.version });
    expect((await engine.listEvents(waiting.id)).items).toHaveLength(logged);
  });

  it("cancels at the current version, and without one as before", async () => {
    const first = await waitingRun();
    const cancelled = await first.engine.cancelRun(first.waiting.id, {
      expected_version: first.waiting.version,
    });
    expect(cancelled).toMatchObject({ status: "cancelled", version: first.waiting.version + 1 });
    const second = await waitingRun();
    expect((await second.engine.cancelRun(second.waiting.id)).status).toBe("cancelled");
  });

  it("refuses an expected_version that is not a positive integer", async () => {
    const { engine, waiting } = await waitingRun();
    await expect(engine.cancelRun(waiting.id, { expected_version: 0 })).rejects.toMatchObject({
      code: "REQUEST_INVALID",
    });
    expect((await engine.getRun(waiting.id)).status).toBe("waiting_user");
  });
});
