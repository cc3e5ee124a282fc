import { describe, expect, it } from "vitest";
import { cursorIndex, isRowVisible, isTableKey, reviewKey, selectRange } from "./review-keys.js";

const ids = ["r1", "r2", "r3"];

describe("reviewKey", () => {
  it("moves with j/k within the rows", () => {
    expect(reviewKey("j", { cursor: -1, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "move",
      cursor: 0,
    });
    expect(reviewKey("j", { cursor: 2, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "move",
      cursor: 2,
    });
    expect(reviewKey("k", { cursor: 0, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "move",
      cursor: 0,
    });
    expect(reviewKey("k", { cursor: 2, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "move",
      cursor: 1,
    });
  });

  it("toggles the selection of the row under the cursor with x", () => {
    const once = reviewKey("x", { cursor: 1, rowIds: ids, selected: new Set(), visible: true });
    expect(once).toEqual({ kind: "select", selected: new Set(["r2"]) });
    expect(reviewKey("x", { cursor: 1, rowIds: ids, selected: new Set(["r2"]), visible: true })).toEqual({
      kind: "select",
      selected: new Set(),
    });
    expect(reviewKey("x", { cursor: -1, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "none",
    });
  });

  it("approves/skips the selection, else the row under the cursor", () => {
    expect(
      reviewKey("a", { cursor: 0, rowIds: ids, selected: new Set(["r2", "r3"]), visible: true }),
    ).toEqual({
      kind: "triage",
      action: "approve",
      rowIds: ["r2", "r3"],
    });
    expect(reviewKey("s", { cursor: 0, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "triage",
      action: "skip",
      rowIds: ["r1"],
    });
    expect(reviewKey("s", { cursor: -1, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "none",
    });
  });

  it("does nothing without rows or for other keys, and Escape clears the selection", () => {
    expect(reviewKey("j", { cursor: -1, rowIds: [], selected: new Set(), visible: true })).toEqual({
      kind: "none",
    });
    expect(reviewKey("q", { cursor: 0, rowIds: ids, selected: new Set(), visible: true })).toEqual({
      kind: "none",
    });
    expect(reviewKey("Escape", { cursor: 0, rowIds: ids, selected: new Set(["r1"]), visible: true })).toEqual(
      {
        kind: "select",
        selected: new Set(),
      },
    );
  });
});

describe("isTableKey and selectRange", () => {
  const key = { altKey: false, ctrlKey: false, metaKey: false };
  it("ignores keys typed into fields or with a modifier", () => {
    expect(isTableKey({ ...key, target: null })).toBe(true);
    expect(isTableKey({ ...key, target: { tagName: "INPUT" } as unknown as EventTarget })).toBe(false);
    expect(isTableKey({ ...key, ctrlKey: true, target: null })).toBe(false);
  });
  it("selects a range in either direction, within the rows", () => {
    expect(selectRange(ids, 2, 0, new Set())).toEqual(new Set(ids));
    expect(selectRange(ids, 1, 9, new Set(["r1"]))).toEqual(new Set(ids));
  });
});

describe("keys act only on a row on screen", () => {
  it("brings the cursor row (row 0 before any move) into view instead of acting", () => {
    const hidden = { rowIds: ids, selected: new Set<string>(), visible: false };
    expect(reviewKey("s", { ...hidden, cursor: -1 })).toEqual({ kind: "reveal", cursor: 0 });
    expect(reviewKey("j", { ...hidden, cursor: -1 })).toEqual({ kind: "reveal", cursor: 0 });
    expect(reviewKey("a", { ...hidden, cursor: 2 })).toEqual({ kind: "reveal", cursor: 2 });
    expect(reviewKey("x", { ...hidden, cursor: 1 })).toEqual({ kind: "reveal", cursor: 1 });
    expect(reviewKey("a", { ...hidden, cursor: 0, selected: new Set(["r2"]) })).toEqual({
      kind: "reveal",
      cursor: 0,
    });
    // Escape only clears the selection, whatever is on screen; other keys do nothing.
    expect(reviewKey("Escape", { ...hidden, cursor: 0, selected: new Set(["r1"]) })).toEqual({
      kind: "select",
      selected: new Set(),
    });
    expect(reviewKey("q", { ...hidden, cursor: 0 })).toEqual({ kind: "none" });
  });

  it("counts a row visible when at least half of it is inside every clip", () => {
    const viewport = { top: 0, bottom: 800 };
    const table = { top: 300, bottom: 700 };
    expect(isRowVisible({ top: 340, bottom: 384 }, [viewport, table])).toBe(true);
    expect(isRowVisible({ top: 280, bottom: 324 }, [viewport, table])).toBe(true);
    expect(isRowVisible({ top: 270, bottom: 314 }, [viewport, table])).toBe(false);
    expect(isRowVisible({ top: -100, bottom: -56 }, [viewport, { top: -200, bottom: 200 }])).toBe(false);
    expect(isRowVisible({ top: 790, bottom: 834 }, [viewport])).toBe(false);
    expect(isRowVisible(undefined, [viewport])).toBe(false);
    expect(isRowVisible({ top: 10, bottom: 10 }, [viewport])).toBe(false);
  });

  it("keeps the cursor on the same row id when the list changes", () => {
    expect(cursorIndex(["r3", "r1", "r2"], "r1", 0)).toBe(1);
    // The row left the list: the one that took its place, clamped to the rows left.
    expect(cursorIndex(["r1", "r3"], "r2", 1)).toBe(1);
    expect(cursorIndex(["r1"], "r2", 2)).toBe(0);
    expect(cursorIndex(ids, undefined, 1)).toBe(-1);
    expect(cursorIndex([], "r1", 0)).toBe(-1);
  });
});
