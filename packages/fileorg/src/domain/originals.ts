import { z } from "zod";
import { basename } from "./posix-path.js";

/**
 * Which copy of a duplicate group is the original. `name` (the default): the copies whose names carry no
 * copy marker ("Copy of ", " (1)", " copy", " - Copy", " copy 2"…), then among those the oldest content
 * date, then the shortest path, then the first seen; `first_seen`: the copy analyze met first. Pure.
 */
export const ORIGINAL_POLICIES = ["name", "first_seen"] as const;
/** How a duplicate group's original is chosen. */
export type OriginalPolicy = (typeof ORIGINAL_POLICIES)[number];
/** The default policy. */
export const DEFAULT_ORIGINAL_POLICY: OriginalPolicy = "name";

/** Why a copy was named the original. */
export const ORIGINAL_REASONS = [
  "NAME_WITHOUT_COPY_MARKER",
  "OLDEST_DATE",
  "SHORTEST_PATH",
  "FIRST_SEEN",
  "CHOSEN_BY_PERSON",
] as const;
/** Why a copy was named the original. */
export type OriginalReason = (typeof ORIGINAL_REASONS)[number];

/** A duplicate group's original and why. */
export const DuplicateOriginal = z
  .object({
    row_id: z.string(),
    reasons: z.array(z.enum(ORIGINAL_REASONS)).meta({
      description: "Each step of the policy that decided, in order (a person's choice: CHOSEN_BY_PERSON)",
    }),
    policy: z.enum(ORIGINAL_POLICIES),
    chosen_by: z.enum(["policy", "person"]),
  })
  .meta({ id: "FileorgDuplicateOriginal" });
/** A duplicate group's original and why. */
export type DuplicateOriginal = z.infer<typeof DuplicateOriginal>;

/** What choosing an original needs of each copy. */
export interface CopyFacts {
  rowId: string;
  sourcePath: string;
  /** The file's best date (ms). */
  date: number;
  /** Analyze order. */
  seq: number;
}

const COPY_MARKERS: readonly RegExp[] = [
  /^copy of /i,
  /^copy \(\d+\) of /i,
  / \(\d+\)$/,
  / copy( \d+)?$/i,
  / - copy( \(\d+\))?$/i,
  /_copy( ?\d+)?$/i,
];

/** Whether a file name carries a copy marker ("Copy of a.png", "a (1).png", "a copy.png", "a - Copy.png"). */
export function hasCopyMarker(fileName: string): boolean {
  const dot = fileName.lastIndexOf(".");
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  return COPY_MARKERS.some((m) => m.test(stem));
}

/** Keeps the copies whose `key` is the least; records `reason` when that narrowed the field. */
function narrow(
  copies: readonly CopyFacts[],
  key: (c: CopyFacts) => number,
  reason: OriginalReason,
  reasons: OriginalReason[],
): CopyFacts[] {
  const least = Math.min(...copies.map(key));
  const kept = copies.filter((c) => key(c) === least);
  if (kept.length < copies.length) reasons.push(reason);
  return kept;
}

/** Names the original of a duplicate group by the policy, with the reasons (pure; `copies` not empty). */
export function chooseOriginal(
  copies: readonly CopyFacts[],
  policy: OriginalPolicy = DEFAULT_ORIGINAL_POLICY,
): { rowId: string; reasons: OriginalReason[] } | undefined {
  const bySeq = [...copies].sort((a, b) => a.seq - b.seq);
  const first = bySeq[0];
  if (first === undefined) return undefined;
  if (policy === "first_seen") return { rowId: first.rowId, reasons: ["FIRST_SEEN"] };
  const reasons: OriginalReason[] = [];
  let field = bySeq;
  const unmarked = field.filter((c) => !hasCopyMarker(basename(c.sourcePath)));
  if (unmarked.length > 0 && unmarked.length < field.length) {
    reasons.push("NAME_WITHOUT_COPY_MARKER");
    field = unmarked;
  }
  if (field.length > 1) field = narrow(field, (c) => c.date, "OLDEST_DATE", reasons);
  if (field.length > 1) field = narrow(field, (c) => c.sourcePath.length, "SHORTEST_PATH", reasons);
  const chosen = field[0] ?? first;
  if (field.length > 1 || reasons.length === 0) reasons.push("FIRST_SEEN");
  return { rowId: chosen.rowId, reasons };
}
