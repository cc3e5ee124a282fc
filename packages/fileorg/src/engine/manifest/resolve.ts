import { lstat } from "node:fs/promises";
import { basename, join } from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import type { Conflict, ConflictKind, ResolutionStrategy, ResolveRequest } from "../../domain/conflict.js";
import type { Actor } from "../../domain/job.js";
import { pathKey, withSuffix } from "../../domain/template.js";
import { FileorgError, NotFoundError } from "../../errors.js";
import { conflicts, rows } from "../../store/schema.js";
import { confineScope } from "../confined-fs.js";
import { hashConfined } from "../confined-moves.js";
import type { EngineContext } from "../context.js";
import { chunk, type Queryable } from "../db.js";
import type { InternalPatch } from "./patch-plan.js";
import { patchRows } from "./patches.js";
import { loadRows, planHashOfJob, type RowRecord, requireManifestJob } from "./rows.js";
import { toConflict } from "./views.js";

type ConflictRecord = typeof conflicts.$inferSelect;
type Resolution = ResolveRequest["resolutions"][number];
/** One row patch a resolution makes. */
export type RowOp = { row_id: string; patch: InternalPatch };

async function existsOnDisk(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Finds a free ` (n)` variant of `path`: used neither by another moving row nor on disk. */
async function freeVariant(db: Queryable, jobId: string, path: string, taken: Set<string>): Promise<string> {
  for (let n = 2; n < 100_000; n++) {
    const candidate = withSuffix(path, n);
    const key = pathKey(candidate);
    if (taken.has(key)) continue;
    const [used] = await db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.jobId, jobId), eq(rows.targetKey, key), inArray(rows.action, ["move", "copy"])))
      .limit(1);
    if (used === undefined && !(await existsOnDisk(candidate))) {
      taken.add(key);
      return candidate;
    }
  }
  throw new FileorgError("STRATEGY_NOT_APPLICABLE", `No free name found for ${path}.`);
}

const TARGET_KINDS: readonly ConflictKind[] = ["duplicate_target", "case_collision", "target_exists"];

/** What resolving one conflict needs: where sources may be re-read and the names already handed out. */
export interface ResolveScope {
  ctx: EngineContext;
  jobId: string;
  sourceRoots: readonly string[];
  taken: Set<string>;
  /** The manifest's output root (`_duplicates/` lies under it). */
  outputDir: string;
}

function notApplicable(c: ConflictRecord, strategy: ResolutionStrategy): FileorgError {
  return new FileorgError("STRATEGY_NOT_APPLICABLE", `${strategy} does not resolve a ${c.kind} conflict.`, {
    conflict_id: c.id,
    kind: c.kind,
    strategy,
  });
}

/** `rename` / `keep_both`: free names for target conflicts, accepted duplicates, or re-read sources. */
async function renameOrKeep(
  scope: ResolveScope,
  c: ConflictRecord,
  strategy: ResolutionStrategy,
  members: RowRecord[],
): Promise<RowOp[]> {
  const ops: RowOp[] = [];
  if (TARGET_KINDS.includes(c.kind)) {
    for (const r of c.kind === "target_exists" ? members : members.slice(1)) {
      const target = await freeVariant(scope.ctx.db, scope.jobId, r.targetPath, scope.taken);
      ops.push({ row_id: r.id, patch: { target_path: target } });
    }
  } else if (strategy === "keep_both" && c.kind === "duplicate_content") {
    for (const r of members) ops.push({ row_id: r.id, patch: { duplicate_accepted: true } });
  } else if (strategy === "keep_both" && c.kind === "source_changed") {
    for (const r of members) {
      // Re-read through the confined layer: the very descriptor hashed gives the new identity.
      const read = await hashConfined(scope.sourceRoots, r.sourcePath);
      if (!("sha256" in read)) throw notApplicable(c, strategy);
      const { facts } = read;
      const refresh = { size: facts.size, mtime: facts.mtime, sha256: read.sha256 };
      const identity = { dev: facts.dev, ino: facts.ino, ctime: facts.ctime };
      ops.push({ row_id: r.id, patch: { refresh_source: { ...refresh, ...identity } } });
    }
  } else {
    throw notApplicable(c, strategy);
  }
  return ops;
}

/** The folder duplicates are moved to, under the output root. */
export const DUPLICATES_FOLDER = "_duplicates";

/** A duplicate group's original first (the policy's or a person's choice), then the other copies. */
function originalFirst(c: ConflictRecord, members: RowRecord[]): RowRecord[] {
  const id = c.original?.row_id;
  const original = members.find((m) => m.id === id);
  return original === undefined ? members : [original, ...members.filter((m) => m !== original)];
}

/**
 * `move_to_duplicates` (duplicate content): the original (`conflict.original`: by the manifest's
 * `detect_original_by` policy, or a person's choice) keeps its target; every other copy moves into
 * `_duplicates/` under the output root, under its planned name or, when that is taken (by another row or on
 * disk), a free ` (n)` variant — never over anything — and its duplicate content is accepted.
 */
async function toDuplicatesFolder(scope: ResolveScope, members: RowRecord[]): Promise<RowOp[]> {
  const ops: RowOp[] = [];
  for (const r of members.slice(1)) {
    const wanted = join(scope.outputDir, DUPLICATES_FOLDER, basename(r.targetPath));
    const key = pathKey(wanted);
    const [used] = await scope.ctx.db
      .select({ id: rows.id })
      .from(rows)
      .where(
        and(eq(rows.jobId, scope.jobId), eq(rows.targetKey, key), inArray(rows.action, ["move", "copy"])),
      )
      .limit(1);
    const free = !scope.taken.has(key) && used === undefined && !(await existsOnDisk(wanted));
    if (free) scope.taken.add(key);
    const target = free ? wanted : await freeVariant(scope.ctx.db, scope.jobId, wanted, scope.taken);
    ops.push({ row_id: r.id, patch: { target_path: target, duplicate_accepted: true } });
  }
  return ops;
}

/** The row patches that carry out one resolution of an open conflict (also the dry run of its preview). */
export async function opsOf(scope: ResolveScope, c: ConflictRecord, res: Resolution): Promise<RowOp[]> {
  const members = (await loadRows(scope.ctx.db, scope.jobId, c.rowIds)).sort((a, b) => a.seq - b.seq);
  if (members.length === 0) return [];
  switch (res.strategy) {
    case "skip": {
      const keepFirst =
        c.kind === "duplicate_target" || c.kind === "case_collision" || c.kind === "duplicate_content";
      const ordered = c.kind === "duplicate_content" ? originalFirst(c, members) : members;
      return (keepFirst ? ordered.slice(1) : ordered).map((r) => ({
        row_id: r.id,
        patch: { action: "skip" },
      }));
    }
    case "rename":
    case "keep_both":
      return renameOrKeep(scope, c, res.strategy, members);
    case "move_to_duplicates":
      if (c.kind !== "duplicate_content") throw notApplicable(c, res.strategy);
      return toDuplicatesFolder(scope, originalFirst(c, members));
    case "move_to_trash":
      // The original keeps its target; every other copy goes to the system trash at apply.
      if (c.kind !== "duplicate_content") throw notApplicable(c, res.strategy);
      return originalFirst(c, members)
        .slice(1)
        .map((r) => ({ row_id: r.id, patch: { action: "trash", duplicate_accepted: true } }));
    case "manual": {
      if (res.target_path === undefined) {
        throw new FileorgError("INVALID_TARGET_PATH", "A manual resolution needs a target_path.", {
          conflict_id: c.id,
        });
      }
      const row =
        res.row_id === undefined ? members[members.length - 1] : members.find((m) => m.id === res.row_id);
      if (row === undefined) {
        throw new NotFoundError("ROW_NOT_FOUND", `Row ${res.row_id} is not part of conflict ${c.id}.`);
      }
      return [{ row_id: row.id, patch: { target_path: res.target_path } }];
    }
  }
}

/** A manifest's conflict by id. Throws CONFLICT_NOT_FOUND. */
export async function findConflict(
  db: Queryable,
  jobId: string,
  conflictIdOf: string,
): Promise<ConflictRecord> {
  const [c] = await db
    .select()
    .from(conflicts)
    .where(and(eq(conflicts.id, conflictIdOf), eq(conflicts.jobId, jobId)))
    .limit(1);
  if (c === undefined) {
    throw new NotFoundError("CONFLICT_NOT_FOUND", `No conflict ${conflictIdOf} in ${jobId}.`, {
      conflict_id: conflictIdOf,
    });
  }
  return c;
}

/**
 * Resolves conflicts: each resolution becomes row patches (rename with ` (n)`, skip, keep both, or a manual
 * target), applied in one atomic batch. Resolving an already resolved conflict changes nothing.
 */
export async function resolveConflicts(
  ctx: EngineContext,
  jobId: string,
  request: ResolveRequest,
  options: Actor & { expectedRevision?: number | undefined },
): Promise<{ revision: number; plan_hash: string; conflicts: Conflict[] }> {
  const manifestJob = await requireManifestJob(ctx.db, jobId);
  const sourceRoots = confineScope(ctx.guard.roots, String(manifestJob.params.source_dir ?? ""));
  const outputDir = String(manifestJob.params.output_dir ?? "");
  const scope: ResolveScope = { ctx, jobId, sourceRoots, taken: new Set(), outputDir };
  const ops: RowOp[] = [];
  const strategies = new Map<string, ResolutionStrategy>();
  for (const res of request.resolutions) {
    const c = await findConflict(ctx.db, jobId, res.conflict_id);
    if (c.status !== "open") continue;
    strategies.set(c.id, res.strategy);
    ops.push(...(await opsOf(scope, c, res)));
  }
  const job = await requireManifestJob(ctx.db, jobId);
  let revision = job.revision ?? 0;
  let planHash = planHashOfJob(job) ?? "";
  if (ops.length > 0) {
    const edited = await patchRows(ctx, jobId, ops, {
      ...options,
      resolutions: strategies,
      personEdit: false,
      auditAction: "conflict.resolved",
      extraAudit: [...strategies].map(([id, strategy]) => ({
        jobId,
        actor: options.actor,
        requestId: options.requestId ?? null,
        action: "conflict.resolve",
        subject: id,
        before: { status: "open" },
        after: { strategy },
      })),
    });
    revision = edited.revision;
    planHash = edited.plan_hash;
  }
  const after: Conflict[] = [];
  for (const part of chunk(
    request.resolutions.map((r) => r.conflict_id),
    500,
  )) {
    after.push(...(await ctx.db.select().from(conflicts).where(inArray(conflicts.id, part))).map(toConflict));
  }
  return { revision, plan_hash: planHash, conflicts: after };
}
