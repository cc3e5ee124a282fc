import { lstat, stat } from "node:fs/promises";
import { extname, posix } from "node:path";
import { classifyFile } from "../../domain/categorize.js";
import { renderedFileName } from "../../domain/content-check.js";
import type { RowAction } from "../../domain/manifest.js";
import { REVIEW_MARKERS } from "../../domain/review-bucket.js";
import { type ParsedTemplate, pathKey, renderTemplate, resolveTargetPath } from "../../domain/template.js";
import { UNIT_REASON } from "../../domain/units.js";
import { FileorgError, JobStateError } from "../../errors.js";
import type { PathGuard } from "../path-guard.js";
import type { RowRecord } from "./rows.js";

/** A patch the engine applies to a row: the public fields plus what conflict resolutions need. */
export interface InternalPatch {
  target_path?: string | undefined;
  /** A known category, built in or custom (checked by the caller: CATEGORY_UNKNOWN). */
  category?: string | undefined;
  action?: RowAction | undefined;
  /** Accept this row's duplicate content (`keep_both` on `duplicate_content`). */
  duplicate_accepted?: boolean | undefined;
  /** Re-read the source (`keep_both` on `source_changed`): new size, mtime and hash. */
  refresh_source?:
    | { size: number; mtime: number; sha256: string; dev: number; ino: number; ctime: number }
    | undefined;
  /** A person approves (true) or withdraws approval (false); approval sends the row to `auto_safe`. */
  approved?: boolean | undefined;
  /** The row leaves its unit and is planned on its own, as analyze plans a file outside units. */
  split_unit?: boolean | undefined;
}

/** What planning a row's patch needs of its manifest. */
export interface PatchPlanContext {
  guard: PathGuard;
  outputDir: string;
  /** The analyzed folder (`{relpath}`), when known. */
  sourceDir?: string | undefined;
  /** The manifest's naming template, when it parses. */
  template: ParsedTemplate | undefined;
  /** The status a row whose source is re-read returns to (`failed` → `pending`), through the row table. */
  refreshedStatus: (from: RowRecord["status"], rowId: string) => RowRecord["status"];
  /**
   * Whether the patch is a person's direct change of the row (a PATCH): only such a change marks the row
   * `EDITED` and withdraws its approval. Rules, triage and conflict resolutions are not person edits.
   */
  personEdit?: boolean | undefined;
  /** The target templates of custom categories: a new category with one renders its target with it. */
  categoryTemplates?: ReadonlyMap<string, ParsedTemplate> | undefined;
}

async function isOccupied(target: string, source: string): Promise<boolean> {
  if (target === source) return false;
  try {
    const t = await lstat(target);
    try {
      const s = await stat(source);
      if (s.ino === t.ino && s.dev === t.dev) return false;
    } catch {
      // source gone: the target is someone else's
    }
    return true;
  } catch {
    return false;
  }
}

async function targetOf(
  ctx: PatchPlanContext,
  r: RowRecord,
  patch: InternalPatch,
): Promise<string | undefined> {
  if (patch.target_path !== undefined) {
    const checked = resolveTargetPath(ctx.outputDir, patch.target_path);
    if (!checked.ok) {
      throw new FileorgError("INVALID_TARGET_PATH", checked.message, {
        row_id: r.id,
        target_path: patch.target_path,
      });
    }
    // Refuses a target outside the allowed roots, including through a symlinked parent.
    await ctx.guard.resolvePossiblyMissing(checked.path);
    return checked.path;
  }
  const split = patch.split_unit === true && r.unitId !== null;
  // A unit row keeps its place inside the unit, whatever its category.
  if (!split && (patch.category === undefined || patch.category === r.category || r.unitId !== null))
    return undefined;
  const category = patch.category ?? r.category;
  const template = ctx.categoryTemplates?.get(category) ?? ctx.template;
  if ((r.targetEdited && !split) || template === undefined) return undefined;
  const rel = renderTemplate(template, {
    category,
    mtime: r.mtime,
    date: r.date,
    fileName: renderedFileName(r.sourcePath, r.targetPath, r.reasonCodes),
    sha256: r.sha256,
    sourcePath: r.sourcePath,
    sourceRoot: ctx.sourceDir,
    meta: r.meta,
    unitRoot: split ? null : r.unit?.root,
  });
  return posix.join(ctx.outputDir, rel);
}

function refreshFields(ctx: PatchPlanContext, r: RowRecord, patch: InternalPatch): Partial<RowRecord> {
  const fresh = patch.refresh_source;
  if (fresh === undefined) return {};
  const next: Partial<RowRecord> = {
    size: fresh.size,
    mtime: fresh.mtime,
    sha256: fresh.sha256,
    sourceDev: fresh.dev,
    sourceIno: fresh.ino,
    sourceCtime: fresh.ctime,
    sourceChanged: false,
  };
  if (r.status === "failed") {
    next.status = ctx.refreshedStatus(r.status, r.id);
    next.error = null;
  }
  return next;
}

/**
 * The reason codes after a patch: the approval marker added or removed, and the chosen-skip marker set when
 * a rule, triage or resolution (`chosenAction`) skips the row, cleared when one moves it; `undefined` when
 * nothing changes.
 */
function reasonCodesAfter(
  codes: readonly string[],
  approve: boolean | undefined,
  chosenAction: RowAction | undefined,
): string[] | undefined {
  let out = [...codes];
  const approved = codes.includes(REVIEW_MARKERS.approved);
  if (approve !== undefined && approve !== approved) {
    out = approve ? [...out, REVIEW_MARKERS.approved] : out.filter((c) => c !== REVIEW_MARKERS.approved);
  }
  const chosen = codes.includes(REVIEW_MARKERS.skipChosen);
  if (chosenAction === "skip" && !chosen) out.push(REVIEW_MARKERS.skipChosen);
  if (chosenAction === "move" && chosen) out = out.filter((c) => c !== REVIEW_MARKERS.skipChosen);
  return out.length === codes.length && out.every((c, i) => c === codes[i]) ? undefined : out;
}

/** A row leaving its unit: classified by itself again (its extension and type), no longer a unit row. */
function splitFields(r: RowRecord): Partial<RowRecord> & { category: string } {
  const cls = classifyFile({ ext: extname(r.sourcePath), sniffedMime: r.mime ?? undefined });
  return {
    unitId: null,
    unit: null,
    category: cls.category,
    confidence: cls.confidence,
    reasonCodes: [...r.reasonCodes.filter((c) => c !== UNIT_REASON), ...cls.reasonCodes],
  };
}

/**
 * The stored fields a patch changes on a row (I/O outside the transaction: the target's confinement and
 * occupancy), or `undefined` when nothing changes. Throws ROW_NOT_EDITABLE, INVALID_TARGET_PATH or
 * PATH_OUTSIDE_ROOT.
 */
export async function planRowPatch(
  ctx: PatchPlanContext,
  r: RowRecord,
  input: InternalPatch,
): Promise<Partial<RowRecord> | undefined> {
  if (r.status === "applied") {
    throw new JobStateError("ROW_NOT_EDITABLE", `Row ${r.id} is applied; roll it back before editing it.`, {
      row_id: r.id,
    });
  }
  const next: Partial<RowRecord> = {};
  const split = input.split_unit === true && r.unitId !== null ? splitFields(r) : undefined;
  if (split !== undefined) Object.assign(next, split);
  const patch = split === undefined ? input : { ...input, category: input.category ?? split.category };
  if (patch.category !== undefined && patch.category !== r.category) next.category = patch.category;
  const target = await targetOf(ctx, r, patch);
  // Field order is kept as it always was: the audit entry lists the changed fields in this order.
  if (target !== undefined) next.targetPath = target;
  if (patch.target_path !== undefined) next.targetEdited = true;
  if (patch.action !== undefined && patch.action !== r.action) next.action = patch.action;
  if (patch.duplicate_accepted !== undefined) next.duplicateAccepted = patch.duplicate_accepted;
  Object.assign(next, refreshFields(ctx, r, patch));
  if (target !== undefined && target !== r.targetPath) {
    next.targetKey = pathKey(target);
    next.targetOccupied = await isOccupied(target, r.sourcePath);
  } else {
    delete next.targetPath;
  }
  const changed = Object.keys(next).filter((k) => k !== "targetEdited");
  const person = ctx.personEdit !== false;
  const approved = r.reasonCodes.includes(REVIEW_MARKERS.approved);
  // Approval is a person's word on the row as it is: a person's own later change withdraws it; a rule's,
  // a triage's or a resolution's does not.
  const approve = patch.approved ?? (person && approved && changed.length > 0 ? false : undefined);
  const codes = reasonCodesAfter(
    next.reasonCodes ?? r.reasonCodes,
    approve,
    person ? undefined : next.action,
  );
  if (codes !== undefined) next.reasonCodes = codes;
  if (changed.length > 0 && person) next.edited = true;
  return changed.length > 0 || next.reasonCodes !== undefined ? next : undefined;
}
