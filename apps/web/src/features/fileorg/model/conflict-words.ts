/** The words of a conflict for people: what collides, named by relative paths, never a raw hash. */

/** The kinds of conflict (as the server names them). */
export type ConflictKind =
  | "duplicate_target"
  | "target_exists"
  | "case_collision"
  | "duplicate_content"
  | "source_changed"
  | "outside_root";

/** What a conflict is about, in a sentence: `2 files want images/2024/a.jpg`. */
export function conflictTitle(kind: ConflictKind, targets: readonly string[]): string {
  const first = targets[0] ?? "";
  const n = targets.length;
  switch (kind) {
    case "duplicate_target":
      return `duplicate target: ${n} files want ${first}`;
    case "case_collision":
      return `case collision: ${n} names differ only in case (${targets.join(", ")})`;
    case "duplicate_content":
      return `duplicate content: ${n} copies of the same file`;
    case "target_exists":
      return `target exists: something is already at ${first}`;
    case "source_changed":
      return `source changed since the analysis: ${first}`;
    case "outside_root":
      return `outside root: ${first} is outside the output folder`;
  }
}

/** What one file becomes under a resolution: `x/a.jpg → images/a (2).jpg`, or that it stays. */
export function outcomeLine(
  source: string,
  outcome: { action: "move" | "skip" | "trash" | "copy"; target: string },
): string {
  if (outcome.action === "skip") return `${source}: skipped, stays where it is`;
  if (outcome.action === "copy") return `${source} → ${outcome.target} (a copy; the source stays)`;
  return outcome.action === "trash" ? `${source} → the trash` : `${source} → ${outcome.target}`;
}
