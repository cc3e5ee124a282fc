import { runTransaction } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import type { Conflict } from "../../domain/conflict.js";
import type { Actor } from "../../domain/job.js";
import type { EditResult } from "../../domain/manifest.js";
import { FileorgError, JobStateError, NotFoundError } from "../../errors.js";
import { conflicts, rows } from "../../store/schema.js";
import type { EngineContext } from "../context.js";
import { appendAudit } from "../records.js";
import { originalPolicyOf } from "./conflicts.js";
import { assertManifestUnlocked, patchRows } from "./patches.js";
import { requireManifestJob } from "./rows.js";
import { toConflict } from "./views.js";

/**
 * Splits a unit: its rows leave it and are planned one by one again, as analyze plans files outside units
 * (classified by themselves, targets from the manifest's naming template). One atomic batch, audited as
 * `unit.split`; not a person's edit of each row (the rows are reviewed as any analyzed row). Throws
 * UNIT_NOT_FOUND, MANIFEST_LOCKED, REVISION_MISMATCH, ROW_NOT_EDITABLE (a row of the unit is applied).
 */
export async function splitUnit(
  ctx: EngineContext,
  jobId: string,
  unitId: string,
  options: Actor & { expectedRevision?: number | undefined },
): Promise<EditResult> {
  await requireManifestJob(ctx.db, jobId);
  const members = await ctx.db
    .select({ id: rows.id })
    .from(rows)
    .where(and(eq(rows.jobId, jobId), eq(rows.unitId, unitId)));
  if (members.length === 0) {
    throw new NotFoundError("UNIT_NOT_FOUND", `No unit ${unitId} in the manifest of ${jobId}.`, {
      unit_id: unitId,
    });
  }
  return patchRows(
    ctx,
    jobId,
    members.map((m) => ({ row_id: m.id, patch: { split_unit: true } })),
    { ...options, personEdit: false, auditAction: "unit.split" },
  );
}

/**
 * Names another copy of a duplicate group its original, in one action: that copy keeps its planned target
 * when the copies are moved to `_duplicates/` (or skipped). Kept while the copy stays in the group. Throws
 * CONFLICT_NOT_FOUND, STRATEGY_NOT_APPLICABLE (not a duplicate group), CONFLICT_NOT_OPEN (already
 * resolved), NOT_IN_DUPLICATE_GROUP, MANIFEST_LOCKED.
 */
export async function chooseOriginal(
  ctx: EngineContext,
  jobId: string,
  conflictIdOf: string,
  rowId: string,
  options: Actor,
): Promise<Conflict> {
  const job = await requireManifestJob(ctx.db, jobId);
  const at = ctx.clock();
  return runTransaction(ctx.db, async (tx) => {
    await assertManifestUnlocked(tx, jobId);
    const [c] = await tx
      .select()
      .from(conflicts)
      .where(and(eq(conflicts.id, conflictIdOf), eq(conflicts.jobId, jobId)))
      .limit(1);
    if (c === undefined) {
      throw new NotFoundError("CONFLICT_NOT_FOUND", `No conflict ${conflictIdOf} in ${jobId}.`, {
        conflict_id: conflictIdOf,
      });
    }
    if (c.kind !== "duplicate_content") {
      throw new FileorgError(
        "STRATEGY_NOT_APPLICABLE",
        `Conflict ${c.id} is a ${c.kind}, not a duplicate group.`,
        {
          conflict_id: c.id,
          kind: c.kind,
        },
      );
    }
    if (c.status !== "open") {
      throw new JobStateError(
        "CONFLICT_NOT_OPEN",
        `Conflict ${c.id} is already resolved (${c.resolution ?? ""}).`,
        {
          conflict_id: c.id,
        },
      );
    }
    if (!c.rowIds.includes(rowId)) {
      throw new FileorgError(
        "NOT_IN_DUPLICATE_GROUP",
        `Row ${rowId} is not a copy in duplicate group ${c.id}.`,
        {
          conflict_id: c.id,
          row_id: rowId,
          row_ids: c.rowIds,
        },
      );
    }
    const original = {
      row_id: rowId,
      reasons: ["CHOSEN_BY_PERSON" as const],
      policy: originalPolicyOf(job),
      chosen_by: "person" as const,
    };
    await tx.update(conflicts).set({ original }).where(eq(conflicts.id, c.id));
    await appendAudit(
      tx,
      [
        {
          jobId,
          actor: options.actor,
          requestId: options.requestId ?? null,
          action: "conflict.original_chosen",
          subject: c.id,
          before: c.original ?? null,
          after: original,
        },
      ],
      at,
    );
    return toConflict({ ...c, original });
  });
}
