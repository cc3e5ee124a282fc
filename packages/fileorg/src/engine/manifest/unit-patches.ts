import { join, relative } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { resolveTargetPath } from "../../domain/template.js";
import { FileorgError } from "../../errors.js";
import { rows } from "../../store/schema.js";
import { chunk, type Queryable } from "../db.js";
import type { InternalPatch } from "./patch-plan.js";
import type { RowRecord } from "./rows.js";

/** The fields a patch of one row of a unit changes on every row of the unit. */
const UNIT_FIELDS = ["action", "category", "approved"] as const;

/** Where a unit row's unit lies under the output: its target without its place inside the unit. */
function targetRootOf(r: RowRecord): { root: string; inside: string } | undefined {
  if (r.unit === null) return undefined;
  const inside = relative(r.unit.root, r.sourcePath);
  if (!r.targetPath.endsWith(`/${inside}`)) return undefined;
  return { root: r.targetPath.slice(0, -(inside.length + 1)), inside };
}

/** The unit's new folder a target patch of one of its rows names; UNIT_KEPT_WHOLE when it renames inside. */
function newUnitRoot(r: RowRecord, target: string, outputDir: string): string {
  const at = targetRootOf(r);
  const checked = resolveTargetPath(outputDir, target);
  const path = checked.ok ? checked.path : target;
  if (at === undefined || !path.endsWith(`/${at.inside}`) || path.length <= at.inside.length + 1) {
    throw new FileorgError(
      "UNIT_KEPT_WHOLE",
      `Row ${r.id} belongs to unit ${r.unitId ?? ""} (${r.unit?.reason ?? ""}); a target must keep its place inside the unit (…/${at?.inside ?? ""}). Move the unit, or split it first.`,
      { row_id: r.id, unit_id: r.unitId, target_path: target },
    );
  }
  return path.slice(0, -(at.inside.length + 1));
}

async function loadUnitMembers(db: Queryable, jobId: string, unitIds: string[]): Promise<RowRecord[]> {
  const out: RowRecord[] = [];
  for (const part of chunk(unitIds, 500)) {
    const found = await db
      .select()
      .from(rows)
      .where(and(eq(rows.jobId, jobId), inArray(rows.unitId, part)));
    out.push(...found);
  }
  return out;
}

/**
 * Spreads the patches of unit rows over their whole units (in place): an action, a category or an approval
 * of one row is the unit's; a target of one row moves the whole unit's folder (every row keeps its place
 * inside it), or — when it would tear the unit — is refused with UNIT_KEPT_WHOLE for a person's edit and
 * left out for a rule, a triage or a resolution (they never split a unit, as at analyze). Row-only fields
 * (a duplicate accepted, a source re-read) and a split stay on the rows named. The members are added to
 * `before`.
 */
export async function spreadOverUnits(
  db: Queryable,
  jobId: string,
  outputDir: string,
  merged: Map<string, InternalPatch>,
  before: Map<string, RowRecord>,
  personEdit = true,
): Promise<void> {
  const unitPatches = new Map<string, InternalPatch & { root?: string }>();
  for (const [rowId, patch] of merged) {
    const r = before.get(rowId);
    if (r === undefined || r.unitId === null || patch.split_unit === true) continue;
    const spread: InternalPatch & { root?: string } = { ...unitPatches.get(r.unitId) };
    for (const f of UNIT_FIELDS) if (patch[f] !== undefined) Object.assign(spread, { [f]: patch[f] });
    if (patch.target_path !== undefined) {
      try {
        spread.root = newUnitRoot(r, patch.target_path, outputDir);
      } catch (error) {
        if (personEdit) throw error;
        const { target_path: _torn, ...kept } = patch;
        merged.set(rowId, kept);
      }
    }
    if (Object.keys(spread).length > 0) unitPatches.set(r.unitId, spread);
  }
  if (unitPatches.size === 0) return;
  for (const m of await loadUnitMembers(db, jobId, [...unitPatches.keys()])) {
    if (m.unitId === null || m.status === "applied") continue;
    before.set(m.id, before.get(m.id) ?? m);
    const { root, ...fields } = unitPatches.get(m.unitId) ?? {};
    const own = merged.get(m.id) ?? {};
    const { target_path: _own, ...ownFields } = own;
    const next: InternalPatch = { ...ownFields, ...fields };
    const at = targetRootOf(m);
    if (root !== undefined && at !== undefined) next.target_path = join(root, at.inside);
    merged.set(m.id, next);
  }
}
