import { and, eq, inArray } from "drizzle-orm";
import type { ResolutionStrategy } from "../../domain/conflict.js";
import {
  type ConflictRow,
  type ConflictScope,
  type DetectedConflict,
  detectConflicts,
  isInScope,
} from "../../domain/detect-conflicts.js";
import {
  chooseOriginal,
  DEFAULT_ORIGINAL_POLICY,
  type DuplicateOriginal,
  ORIGINAL_POLICIES,
  type OriginalPolicy,
} from "../../domain/originals.js";
import { isInside } from "../../domain/posix-path.js";
import { INITIAL_STATUS, moveConflict } from "../../domain/transitions.js";
import { conflicts, rows } from "../../store/schema.js";
import { chunk, type Queryable } from "../db.js";
import { xorDigest } from "../plan-hash.js";
import { appendEvent, type HubMessage, type JobRecord } from "../records.js";
import { conflictId } from "../stable-ids.js";
import { digestOf, type RowRecord, reviewOf, thresholdOf } from "./rows.js";

type ConflictRecord = typeof conflicts.$inferSelect;

/** The outcome of recomputing conflicts: hub messages to publish and the plan accumulator delta applied. */
export interface RecomputeOutcome {
  messages: HubMessage[];
  accumulator: string;
  touchedRowIds: Set<string>;
}

function toConflictRow(r: RowRecord, outputDir: string): ConflictRow {
  return {
    rowId: r.id,
    seq: r.seq,
    action: r.action,
    targetPath: r.targetPath,
    targetKey: r.targetKey,
    sha256: r.sha256,
    size: r.size,
    targetOccupied: r.targetOccupied,
    outsideRoot: !isInside(outputDir, r.targetPath),
    sourceChanged: r.sourceChanged,
    duplicateAccepted: r.duplicateAccepted,
    inUnit: r.unitId !== null,
  };
}

/** Every row of the job the scope concerns (by target key, content hash or id). */
async function loadScopeRows(tx: Queryable, jobId: string, scope: ConflictScope): Promise<RowRecord[]> {
  const found = new Map<string, RowRecord>();
  const load = async (col: typeof rows.targetKey | typeof rows.sha256 | typeof rows.id, values: string[]) => {
    for (const part of chunk(values, 500)) {
      const page = await tx
        .select()
        .from(rows)
        .where(and(eq(rows.jobId, jobId), inArray(col, part)));
      for (const r of page) found.set(r.id, r);
    }
  };
  await load(rows.targetKey, [...scope.targetKeys]);
  await load(rows.sha256, [...scope.shas]);
  await load(rows.id, [...scope.rowIds]);
  return [...found.values()];
}

async function loadConflicts(tx: Queryable, ids: Iterable<string>): Promise<Map<string, ConflictRecord>> {
  const existing = new Map<string, ConflictRecord>();
  for (const part of chunk([...ids], 500)) {
    for (const c of await tx.select().from(conflicts).where(inArray(conflicts.id, part)))
      existing.set(c.id, c);
  }
  return existing;
}

/** The manifest's policy for a duplicate group's original (`detect_original_by`; default `name`). */
export function originalPolicyOf(job: Pick<JobRecord, "params">): OriginalPolicy {
  const p = job.params.detect_original_by;
  return (ORIGINAL_POLICIES as readonly unknown[]).includes(p)
    ? (p as OriginalPolicy)
    : DEFAULT_ORIGINAL_POLICY;
}

/**
 * A duplicate group's original: a person's choice while that copy is still in the group, else the one the
 * policy names (`chooseOriginal`, pure). Null for other kinds.
 */
function originalOf(
  d: DetectedConflict,
  old: ConflictRecord | undefined,
  byId: ReadonlyMap<string, RowRecord>,
  policy: OriginalPolicy,
): DuplicateOriginal | null {
  if (d.kind !== "duplicate_content") return null;
  const kept = old?.original;
  if (kept?.chosen_by === "person" && d.rowIds.includes(kept.row_id)) return kept;
  const copies = d.rowIds.flatMap((id) => {
    const r = byId.get(id);
    return r === undefined
      ? []
      : [{ rowId: r.id, sourcePath: r.sourcePath, date: r.date ?? r.mtime, seq: r.seq }];
  });
  const chosen = chooseOriginal(copies, policy);
  return chosen === undefined
    ? null
    : { row_id: chosen.rowId, reasons: chosen.reasons, policy, chosen_by: "policy" };
}

/** Opens the detected conflicts that are new or were resolved; keeps the members of open ones current. */
async function openDetected(
  tx: Queryable,
  job: JobRecord,
  detectedById: ReadonlyMap<string, DetectedConflict>,
  existing: ReadonlyMap<string, ConflictRecord>,
  byId: ReadonlyMap<string, RowRecord>,
  at: number,
): Promise<HubMessage[]> {
  const jobId = job.id;
  const policy = originalPolicyOf(job);
  const messages: HubMessage[] = [];
  for (const [id, d] of detectedById) {
    const old = existing.get(id);
    const original = originalOf(d, old, byId, policy);
    if (old !== undefined && old.status === "open") {
      if (
        JSON.stringify(old.rowIds) !== JSON.stringify(d.rowIds) ||
        JSON.stringify(old.original ?? null) !== JSON.stringify(original)
      ) {
        await tx.update(conflicts).set({ rowIds: d.rowIds, original }).where(eq(conflicts.id, id));
      }
      continue;
    }
    // A new conflict starts open; a resolved one reopens through the conflict table.
    const status = old === undefined ? INITIAL_STATUS.conflict : moveConflict(old.status, "open", id);
    const reopened = { status, rowIds: d.rowIds, resolution: null, openedAt: at, resolvedAt: null, original };
    if (old === undefined) {
      await tx.insert(conflicts).values({ id, jobId, kind: d.kind, key: d.key, ...reopened });
    } else {
      await tx.update(conflicts).set(reopened).where(eq(conflicts.id, id));
    }
    const payload = { conflict_id: id, kind: d.kind, row_ids: d.rowIds };
    messages.push(await appendEvent(tx, jobId, "conflict_opened", payload, at));
  }
  return messages;
}

/** Resolves the open conflicts of the scope that are no longer detected. */
async function resolveVanished(
  tx: Queryable,
  jobId: string,
  existing: ReadonlyMap<string, ConflictRecord>,
  detectedById: ReadonlyMap<string, DetectedConflict>,
  scopeIds: ReadonlySet<string>,
  resolutions: ReadonlyMap<string, ResolutionStrategy>,
  at: number,
): Promise<HubMessage[]> {
  const messages: HubMessage[] = [];
  for (const [id, c] of existing) {
    if (c.status !== "open" || detectedById.has(id) || !scopeIds.has(id)) continue;
    const resolution = resolutions.get(id) ?? "edited";
    await tx
      .update(conflicts)
      .set({ status: moveConflict(c.status, "resolved", id), resolution, resolvedAt: at })
      .where(eq(conflicts.id, id));
    const payload = { conflict_id: id, kind: c.kind, resolution };
    messages.push(await appendEvent(tx, jobId, "conflict_resolved", payload, at));
  }
  return messages;
}

/** Rewrites the conflict ids, bucket, reasons and plan digest of every row whose membership changed. */
async function refreshMembers(
  tx: Queryable,
  job: JobRecord,
  all: readonly RowRecord[],
  detectedById: ReadonlyMap<string, DetectedConflict>,
  scopeIds: ReadonlySet<string>,
  accumulator: string,
  at: number,
): Promise<{ accumulator: string; touchedRowIds: Set<string> }> {
  const memberships = new Map<string, string[]>();
  for (const [id, d] of detectedById) {
    for (const rowId of d.rowIds) memberships.set(rowId, [...(memberships.get(rowId) ?? []), id]);
  }
  let acc = accumulator;
  const touchedRowIds = new Set<string>();
  for (const r of all) {
    const conflictIds = [
      ...r.conflictIds.filter((id) => !scopeIds.has(id)),
      ...(memberships.get(r.id) ?? []),
    ].sort();
    const { reviewBucket, reasonCodes } = reviewOf({ ...r, conflictIds }, thresholdOf(job));
    const planDigest = digestOf({ ...r, reviewBucket });
    if (
      JSON.stringify(conflictIds) === JSON.stringify(r.conflictIds) &&
      reviewBucket === r.reviewBucket &&
      planDigest === r.planDigest &&
      JSON.stringify(reasonCodes) === JSON.stringify(r.reasonCodes)
    ) {
      continue;
    }
    acc = xorDigest(xorDigest(acc, r.planDigest), planDigest);
    touchedRowIds.add(r.id);
    await tx
      .update(rows)
      .set({ conflictIds, reviewBucket, reasonCodes, planDigest, updatedAt: at })
      .where(eq(rows.id, r.id));
  }
  return { accumulator: acc, touchedRowIds };
}

/**
 * Recomputes the conflicts within `scope` from the stored rows, opens/resolves conflict records, and
 * updates the conflict ids, bucket and plan digest of every row concerned. Runs inside `tx`.
 */
export async function recomputeConflicts(
  tx: Queryable,
  job: JobRecord,
  scope: ConflictScope,
  accumulator: string,
  at: number,
  resolutions: ReadonlyMap<string, ResolutionStrategy> = new Map(),
): Promise<RecomputeOutcome> {
  const outputDir = String(job.params.output_dir ?? "");
  const all = await loadScopeRows(tx, job.id, scope);
  const detected = detectConflicts(
    all.map((r) => toConflictRow(r, outputDir)),
    scope,
  );
  const detectedById = new Map(detected.map((d) => [conflictId(job.id, d.kind, d.key), d]));
  const referenced = new Set<string>(detectedById.keys());
  for (const r of all) for (const id of r.conflictIds) referenced.add(id);
  const existing = await loadConflicts(tx, referenced);
  const scopeIds = new Set<string>(detectedById.keys());
  for (const [id, c] of existing) if (isInScope(c.kind, c.key, scope)) scopeIds.add(id);
  const messages = [
    ...(await openDetected(tx, job, detectedById, existing, new Map(all.map((r) => [r.id, r])), at)),
    ...(await resolveVanished(tx, job.id, existing, detectedById, scopeIds, resolutions, at)),
  ];
  const refreshed = await refreshMembers(tx, job, all, detectedById, scopeIds, accumulator, at);
  return { messages, ...refreshed };
}
