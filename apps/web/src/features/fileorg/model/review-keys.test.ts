import { describe, expect, it } from "vitest";
import { isTableKey, reviewKey, selectRange } from "./review-keys.js";

const ids = ["r1", "r2", "r3"];

describe("reviewKey", () => {
  it("moves with j/k within the rows", () => {
    expect(reviewKey("j", { cursor: -1, rowIds: ids, selected: new Set() })).toEqual({
      kind: "move",
      cursor: 0,
    });
    expect(reviewKey("j", { cursor: 2, rowIds: ids, selected: new Set() })).toEqual({
      kind: "move",
      cursor: 2,
    });
    expect(reviewKey("k", { cursor: 0, rowIds: ids, selected: new Set() })).toEqual({
      kind: "move",
      cursor: 0,
    });
    expect(reviewKey("k", { cursor: 2, rowIds: ids, selected: new Set() })).toEqual({
      kind: "move",
      cursor: 1,
    });
  });

  it("toggles the selection of the row under the cursor with x", () => {
    const once = reviewKey("x", { cursor: 1, rowIds: ids, selected: new Set() });
    expect(once).toEqual({ kind: "select", selected: new Set(["r2"]) });
    expect(reviewKey("x", { cursor: 1, rowIds: ids, selected: new Set(["r2"]) })).toEqual({
      kind: "select",
      selected: new Set(),
    });
    expect(reviewKey("x", { cursor: -1, rowIds: ids, selected: new Set() })).toEqual({ kind: "none" });
  });

  it("approves/skips the selection, else the row under the cursor", () => {
    expect(reviewKey("a", { cursor: 0, rowIds: ids, selected: new Set(["r2", "r3"]) })).toEqual({
      kind: "triage",
      action: "approve",
      rowIds: ["r2", "r3"],
    });
    expect(reviewKey("s", { cursor: 0, rowIds: ids, selected: new Set() })).toEqual({
      kind: "triage",
      action: "skip",
      rowIds: ["r1"],
    });
    expect(reviewKey("s", { cursor: -1, rowIds: ids, selected: new Set() })).toEqual({ kind: "none" });
  });

  it("does nothing without rows or for other keys, and Escape clears the selection", () => {
    expect(reviewKey("j", { cursor: -1, rowIds: [], selected: new Set() })).toEqual({ kind: "none" });
    expect(reviewKey("q", { cursor: 0, rowIds: ids, selected: new Set() })).toEqual({ kind: "none" });
    expect(reviewKey("Escape", { cursor: 0, rowIds: ids, selected: new Set(["r1"]) })).toEqual({
      kind: "select",
      selected: new Set(),
    });
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
