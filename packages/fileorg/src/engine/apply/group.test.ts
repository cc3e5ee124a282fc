import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/libsql";
import { afterEach, describe, expect, it } from "vitest";
import { IllegalTransitionError } from "../../errors.js";
import { rows } from "../../store/schema.js";
import { createHarness, type Harness, TEST_KEY, writeTree } from "../../tests/harness.js";
import { findJob } from "../records.js";
import { createFileorgResources } from "../resources.js";
import { completeGroup, MOVE_COLUMNS } from "./group.js";

describe("completeGroup", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  async function analyzedRow() {
    h = await createHarness();
    writeTree(h.dir, { "in/a.txt": "a" });
    const job = await h.engine.analyze({ source_dir: `${h.dir}/in` }, { actor: "test" });
    await h.engine.waitForJob(job.job_id);
    const [row] = await h.db.select(MOVE_COLUMNS).from(rows).where(eq(rows.jobId, job.job_id));
    const res = createFileorgResources({
      db: drizzle(h.db.$client),
      allowedRoots: [h.dir],
      journalKey: TEST_KEY,
    });
    const record = await findJob(res.ctx.db, job.job_id);
    if (row === undefined || record === undefined) throw new Error("no row");
    return { h, row, record, ctx: res.ctx };
  }

  it("moves a failing row through the row table: pending → failed", async () => {
    const { h, row, record, ctx } = await analyzedRow();
    const error = { code: "SOURCE_MISSING", message: "gone" };
    await completeGroup(ctx, record, "apply", [], [{ row, error }], undefined);
    const [after] = await h.db.select().from(rows).where(eq(rows.id, row.id));
    expect([after?.status, after?.error]).toEqual(["failed", error]);
  });

  it("refuses a move the row table forbids (applied → failed) with ILLEGAL_TRANSITION and changes nothing", async () => {
    const { h, row, record, ctx } = await analyzedRow();
    await h.db.update(rows).set({ status: "applied" }).where(eq(rows.id, row.id));
    const error = { code: "SOURCE_MISSING", message: "gone" };
    await expect(completeGroup(ctx, record, "apply", [], [{ row, error }], undefined)).rejects.toBeInstanceOf(
      IllegalTransitionError,
    );
    const [after] = await h.db.select().from(rows).where(eq(rows.id, row.id));
    expect([after?.status, after?.error]).toEqual(["applied", null]);
  });
});
