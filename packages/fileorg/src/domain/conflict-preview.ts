import { z } from "zod";
import { Conflict, RESOLUTION_STRATEGIES, type ResolutionStrategy } from "./conflict.js";
import { ROW_ACTIONS, type RowAction } from "./manifest.js";

/** One file of a conflict: its names relative to the job's folders, size, dates and type. */
export const ConflictFile = z
  .object({
    row_id: z.string(),
    name: z.string().meta({ description: "The file's base name" }),
    source: z
      .string()
      .meta({ description: "Where it is, relative to the source folder (absolute if outside)" }),
    target: z.string().meta({ description: "Its planned target, relative to the output folder" }),
    action: z.enum(ROW_ACTIONS),
    size: z.number().int(),
    mtime: z.string().meta({ description: "Last modified (ISO 8601)" }),
    date: z.string().nullable().meta({ description: "Its content date (ISO 8601), when known" }),
    mime: z.string().nullable(),
    previewable: z.boolean().meta({ description: "True when a thumbnail can be asked for (image or PDF)" }),
    original: z.boolean().meta({ description: "duplicate_content: this copy is the group's original" }),
  })
  .meta({ id: "FileorgConflictFile" });
/** One file of a conflict. */
export type ConflictFile = z.infer<typeof ConflictFile>;

/** What one file would become under a resolution. */
export const ResolutionOutcome = z.object({
  row_id: z.string(),
  action: z.enum(ROW_ACTIONS),
  target: z.string().meta({ description: "Where it would go, relative to the output folder" }),
  changed: z.boolean().meta({ description: "True when the resolution changes this file's plan" }),
  note: z.enum(["duplicate_accepted", "source_refreshed"]).optional(),
});
/** What one file would become under a resolution. */
export type ResolutionOutcome = z.infer<typeof ResolutionOutcome>;

/** A resolution the engine offers for a conflict, and the tree after it — or why it does not apply. */
export const ResolutionPreview = z.object({
  strategy: z.enum(RESOLUTION_STRATEGIES),
  applicable: z.boolean(),
  files: z.array(ResolutionOutcome),
  summary: z.string().meta({ description: "The outcome in words, e.g. `keep both → a.jpg, a (2).jpg`" }),
  refused: z.object({ code: z.string(), message: z.string() }).optional(),
});
/** A resolution and the tree after it. */
export type ResolutionPreview = z.infer<typeof ResolutionPreview>;

/** A conflict with its files and a dry run of each resolution (nothing is changed). */
export const ConflictPreview = z
  .object({
    conflict: Conflict,
    source_dir: z.string(),
    output_dir: z.string(),
    files: z.array(ConflictFile),
    resolutions: z.array(ResolutionPreview),
  })
  .meta({ id: "FileorgConflictPreview" });
/** A conflict with its files and a dry run of each resolution. */
export type ConflictPreview = z.infer<typeof ConflictPreview>;

/** The strategies a preview tries (`manual` needs a target a person types: it is not previewed). */
export const PREVIEWED_STRATEGIES: readonly ResolutionStrategy[] = RESOLUTION_STRATEGIES.filter(
  (s) => s !== "manual",
);

/** `path` relative to `root` when inside it (POSIX), else `path` unchanged. */
export function relativeTo(root: string, path: string): string {
  const base = root.endsWith("/") ? root : `${root}/`;
  return root !== "" && path.startsWith(base) ? path.slice(base.length) : path;
}

const WORDS: Record<ResolutionStrategy, string> = {
  rename: "rename",
  skip: "skip",
  keep_both: "keep both",
  manual: "manual",
  move_to_duplicates: "move copies to _duplicates",
  move_to_trash: "move copies to the trash",
};

/** The base name of a relative or absolute POSIX path. */
function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * The words of a resolution's outcome: the strategy, then each file's name after it (its target's base
 * name, or its folder-relative target when two names match), skipped files as `name (skipped)`, trashed
 * ones as `name (to the trash)`.
 */
export function summarizeOutcome(
  strategy: ResolutionStrategy,
  files: readonly { action: RowAction; target: string; name: string }[],
): string {
  const names = files.map((f) => baseName(f.target));
  // Only files that move land on a name: a skipped or trashed file's target clashes with nothing.
  const landing = names.filter((_, i) => files[i]?.action === "move");
  const clash = new Set(landing.filter((n, i) => landing.indexOf(n) !== i));
  const parts = files.map((f, i) => {
    const shown = clash.has(names[i] ?? "") ? f.target : (names[i] ?? f.target);
    if (f.action === "skip") return `${f.name} (skipped, stays where it is)`;
    return f.action === "trash" ? `${f.name} (to the trash)` : shown;
  });
  return `${WORDS[strategy]} → ${parts.join(", ")}`;
}
