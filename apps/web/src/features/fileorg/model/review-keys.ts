/**
 * Keyboard handling of the review table, pure: j/k move the cursor, x toggles the row's selection,
 * a/s approve/skip the selected rows (or the row under the cursor when none is selected), Escape clears.
 * A key acts only on a row the person can see: while the row under the cursor (row 0 before any move) is
 * off-screen, the first key only brings it into view.
 */

/** What the table knows when a key is pressed. */
export interface KeyState {
  /** Index of the row under the cursor, -1 when none. */
  cursor: number;
  /** Rows loaded so far. */
  rowIds: readonly string[];
  selected: ReadonlySet<string>;
  /** Whether the row under the cursor (row 0 when none) is on screen, inside the table's scroll box. */
  visible: boolean;
}

/** What a key does. */
export type KeyOutcome =
  | { kind: "move"; cursor: number }
  | { kind: "select"; selected: Set<string> }
  | { kind: "triage"; action: "approve" | "skip"; rowIds: string[] }
  /** The row under the cursor is off-screen: put the cursor on it (row 0 when none) and scroll it into view. */
  | { kind: "reveal"; cursor: number }
  | { kind: "none" };

/** Keys that act on or from the row under the cursor (Escape only clears the selection). */
const ROW_KEYS = new Set(["j", "k", "ArrowDown", "ArrowUp", "x", "a", "s"]);

function clamp(i: number, length: number): number {
  return Math.max(0, Math.min(length - 1, i));
}

/** The outcome of pressing `key` (modifiers and keys typed into fields are ignored by the caller). */
export function reviewKey(key: string, state: KeyState): KeyOutcome {
  const { cursor, rowIds, selected } = state;
  if (rowIds.length === 0) return { kind: "none" };
  if (!state.visible && ROW_KEYS.has(key)) return { kind: "reveal", cursor: clamp(cursor, rowIds.length) };
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

/** A box's vertical extent on screen (a `DOMRect`'s top and bottom). */
export interface Extent {
  top: number;
  bottom: number;
}

/**
 * Whether a row's box is on screen: at least half of it inside every clip (the window's viewport and the
 * table's scroll box below its sticky header). A row not rendered (virtualised away) is `undefined`.
 */
export function isRowVisible(row: Extent | undefined, clips: readonly Extent[]): boolean {
  if (row === undefined || row.bottom <= row.top) return false;
  const top = Math.max(row.top, ...clips.map((c) => c.top));
  const bottom = Math.min(row.bottom, ...clips.map((c) => c.bottom));
  return bottom - top >= (row.bottom - row.top) / 2;
}

/**
 * The cursor's index in the rows now loaded: the row with the id it was on, wherever the list moved it;
 * when that row left the list (approved out of a filter), the row that took its place (`hint`, its last
 * index, clamped); -1 without a cursor.
 */
export function cursorIndex(rowIds: readonly string[], cursorId: string | undefined, hint: number): number {
  if (cursorId === undefined || rowIds.length === 0) return -1;
  const at = rowIds.indexOf(cursorId);
  if (at >= 0) return at;
  return hint < 0 ? -1 : clamp(hint, rowIds.length);
}
