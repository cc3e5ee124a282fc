import { describe, expect, it } from "vitest";
import { type ConflictRow, detectConflicts } from "./detect-conflicts.js";
import { pathKey } from "./template.js";

function row(id: string, seq: number, target: string, over: Partial<ConflictRow> = {}): ConflictRow {
  return {
    rowId: id,
    seq,
    action: "move",
    targetPath: target,
    targetKey: pathKey(target),
    sha256: `sha-${id}`,
    size: 10,
    targetOccupied: false,
    outsideRoot: false,
    sourceChanged: false,
    duplicateAccepted: false,
    ...over,
  };
}

const everything = (rows: ConflictRow[]) => ({
  targetKeys: new Set(rows.map((r) => r.targetKey)),
  shas: new Set(rows.flatMap((r) => (r.sha256 === null ? [] : [r.sha256]))),
  rowIds: new Set(rows.map((r) => r.rowId)),
});

describe("conflict detection", () => {
  it("finds two rows aimed at one path", () => {
    const rows = [row("a", 1, "/o/x.txt"), row("b", 2, "/o/x.txt"), row("c", 3, "/o/y.txt")];
    expect(detectConflicts(rows, everything(rows))).toEqual([
      { kind: "duplicate_target", key: "/o/x.txt", rowIds: ["a", "b"] },
    ]);
  });

  it("finds paths that differ only by case or Unicode normalization", () => {
    const rows = [row("a", 1, "/o/Café.txt"), row("b", 2, "/o/cafe\u0301.TXT")];
    expect(detectConflicts(rows, everything(rows)).map((c) => c.kind)).toEqual(["case_collision"]);
  });

  it("finds duplicate content unless accepted, ignoring empty files and skipped rows", () => {
    const rows = [
      row("a", 1, "/o/1", { sha256: "s" }),
      row("b", 2, "/o/2", { sha256: "s" }),
      row("c", 3, "/o/3", { sha256: "e", size: 0 }),
      row("d", 4, "/o/4", { sha256: "e", size: 0 }),
      row("e", 5, "/o/5", { sha256: "s", action: "skip" }),
    ];
    expect(detectConflicts(rows, everything(rows))).toEqual([
      { kind: "duplicate_content", key: "s", rowIds: ["a", "b"] },
    ]);
    const accepted = rows.map((r) => ({ ...r, duplicateAccepted: true }));
    expect(detectConflicts(accepted, everything(accepted))).toEqual([]);
  });

  it("reports per-row conflicts: target exists, outside root, source changed", () => {
    const rows = [row("a", 1, "/o/1", { targetOccupied: true, outsideRoot: true, sourceChanged: true })];
    expect(detectConflicts(rows, everything(rows)).map((c) => c.kind)).toEqual([
      "target_exists",
      "outside_root",
      "source_changed",
    ]);
  });

  it("looks only inside the given scope", () => {
    const rows = [row("a", 1, "/o/x"), row("b", 2, "/o/x")];
    expect(detectConflicts(rows, { targetKeys: new Set(), shas: new Set(), rowIds: new Set() })).toEqual([]);
  });
});
