import type { ConflictKind } from "./conflict.js";
import type { RowAction } from "./manifest.js";

/** What conflict detection needs to know about a row. */
export interface ConflictRow {
  rowId: string;
  seq: number;
  action: RowAction;
  targetPath: string;
  targetKey: string;
  sha256: string | null;
  size: number;
  /** Something other than the row's own source sits at the target on disk. */
  targetOccupied: boolean;
  /** The target is outside the output directory. */
  outsideRoot: boolean;
  /** The source drifted since analyze (seen at apply). */
  sourceChanged: boolean;
  /** The person accepted this row's duplicate content (`keep_both`). */
  duplicateAccepted: boolean;
  /** The row belongs to a unit: its content is part of the unit, never a duplicate to move away. */
  inUnit?: boolean | undefined;
}

/** Which groups to (re)compute: target keys, content hashes, and rows for per-row conflicts. */
export interface ConflictScope {
  targetKeys: ReadonlySet<string>;
  shas: ReadonlySet<string>;
  rowIds: ReadonlySet<string>;
}

/** A conflict as detected (before it is stored). */
export interface DetectedConflict {
  kind: ConflictKind;
  key: string;
  rowIds: string[];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list === undefined) map.set(k, [item]);
    else list.push(item);
  }
  return map;
}

const bySeq = (a: ConflictRow, b: ConflictRow) => a.seq - b.seq;

/**
 * Detects every conflict within `scope` among `rows` (which must hold every row sharing a scoped target key
 * or hash). Only rows that will move take part. Pure and deterministic: rows are ordered by `seq`.
 */
export function detectConflicts(rows: readonly ConflictRow[], scope: ConflictScope): DetectedConflict[] {
  // A copy lands at its target like a move does.
  const moving = rows.filter((r) => r.action === "move" || r.action === "copy").sort(bySeq);
  const found: DetectedConflict[] = [];
  const byKey = groupBy(
    moving.filter((r) => scope.targetKeys.has(r.targetKey)),
    (r) => r.targetKey,
  );
  for (const [key, group] of byKey) {
    if (group.length < 2) continue;
    const byPath = groupBy(group, (r) => r.targetPath);
    for (const [path, same] of byPath) {
      if (same.length > 1)
        found.push({ kind: "duplicate_target", key: path, rowIds: same.map((r) => r.rowId) });
    }
    if (byPath.size > 1) found.push({ kind: "case_collision", key, rowIds: group.map((r) => r.rowId) });
  }
  const bySha = groupBy(
    moving.filter(
      (r) =>
        r.sha256 !== null &&
        r.size > 0 &&
        !r.duplicateAccepted &&
        r.inUnit !== true &&
        scope.shas.has(r.sha256),
    ),
    (r) => r.sha256 ?? "",
  );
  for (const [sha, group] of bySha) {
    if (group.length > 1)
      found.push({ kind: "duplicate_content", key: sha, rowIds: group.map((r) => r.rowId) });
  }
  for (const r of moving) {
    if (!scope.rowIds.has(r.rowId)) continue;
    if (r.targetOccupied) found.push({ kind: "target_exists", key: r.rowId, rowIds: [r.rowId] });
    if (r.outsideRoot) found.push({ kind: "outside_root", key: r.rowId, rowIds: [r.rowId] });
    if (r.sourceChanged) found.push({ kind: "source_changed", key: r.rowId, rowIds: [r.rowId] });
  }
  return found;
}

/** True when a conflict of `kind` and `key` falls inside `scope` (so a recomputation owns it). */
export function isInScope(kind: ConflictKind, key: string, scope: ConflictScope): boolean {
  switch (kind) {
    case "duplicate_target":
      return scope.targetKeys.has(key.normalize("NFC").toLowerCase());
    case "case_collision":
      return scope.targetKeys.has(key);
    case "duplicate_content":
      return scope.shas.has(key);
    case "target_exists":
    case "outside_root":
    case "source_changed":
      return scope.rowIds.has(key);
  }
}
