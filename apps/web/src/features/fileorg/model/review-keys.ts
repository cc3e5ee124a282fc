/**
 * Keyboard handling of the review table, pure: j/k move the cursor, x toggles the row's selection,
 * a/s approve/skip the selected rows (or the row under the cursor when none is selected), Escape clears.
 */

/** What the table knows when a key is pressed. */
export interface KeyState {
  /** Index of the row under the cursor, -1 when none. */
  cursor: number;
  /** Rows loaded so far. */
  rowIds: readonly string[];
  selected: ReadonlySet<string>;
}

/** What a key does. */
export type KeyOutcome =
  | { kind: "move"; cursor: number }
  | { kind: "select"; selected: Set<string> }
  | { kind: "triage"; action: "approve" | "skip"; rowIds: string[] }
  | { kind: "none" };

function clamp(i: number, length: number): number {
  return Math.max(0, Math.min(length - 1, i));
}

/** The outcome of pressing `key` (modifiers and keys typed into fields are ignored by the caller). */
export function reviewKey(key: string, state: KeyState): KeyOutcome {
  const { cursor, rowIds, selected } = state;
  if (rowIds.length === 0) return { kind: "none" };
  switch (key) {
    case "j":
    case "ArrowDown":
      return { kind: "move", cursor: clamp(cursor + 1, rowIds.length) };
    case "k":
    case "ArrowUp":
      return { kind: "move", cursor: clamp(cursor < 0 ? 0 : cursor - 1, rowIds.length) };
    case "x": {
      const id = rowIds[cursor];
      if (id === undefined) return { kind: "none" };
      const next = new Set(selected);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return { kind: "select", selected: next };
    }
    case "Escape":
      return selected.size === 0 ? { kind: "none" } : { kind: "select", selected: new Set() };
    case "a":
    case "s": {
      const action = key === "a" ? "approve" : "skip";
      if (selected.size > 0) return { kind: "triage", action, rowIds: [...selected] };
      const id = rowIds[cursor];
      return id === undefined ? { kind: "none" } : { kind: "triage", action, rowIds: [id] };
    }
    default:
      return { kind: "none" };
  }
}

/** Whether a keydown should reach the table: not typed into a field, no modifier held. */
export function isTableKey(event: {
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  target: EventTarget | null;
}): boolean {
  if (event.altKey || event.ctrlKey || event.metaKey) return false;
  const t = event.target as { tagName?: string; isContentEditable?: boolean } | null;
  const tag = t?.tagName?.toLowerCase();
  return !(tag === "input" || tag === "textarea" || tag === "select" || t?.isContentEditable === true);
}

/** Range selection (shift-click): every row between `from` and `to`, added to `selected`. */
export function selectRange(
  rowIds: readonly string[],
  from: number,
  to: number,
  selected: ReadonlySet<string>,
): Set<string> {
  const next = new Set(selected);
  const [lo, hi] = from <= to ? [from, to] : [to, from];
  for (let i = Math.max(0, lo); i <= Math.min(rowIds.length - 1, hi); i++) {
    const id = rowIds[i];
    if (id !== undefined) next.add(id);
  }
  return next;
}
