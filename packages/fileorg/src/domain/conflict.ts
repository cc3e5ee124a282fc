import { z } from "zod";
import { DuplicateOriginal } from "./originals.js";
import { PathInput } from "./path-input.js";
import { CONFLICT_STATUSES } from "./transitions.js";

/** Kinds of conflict a manifest can hold. */
export const CONFLICT_KINDS = [
  "duplicate_target",
  "target_exists",
  "case_collision",
  "duplicate_content",
  "source_changed",
  "outside_root",
] as const;
/** A kind of conflict. */
export type ConflictKind = (typeof CONFLICT_KINDS)[number];

/** How a conflict can be resolved. */
export const RESOLUTION_STRATEGIES = [
  "rename",
  "skip",
  "keep_both",
  "manual",
  "move_to_duplicates",
  "move_to_trash",
] as const;
/** How a conflict can be resolved. */
export type ResolutionStrategy = (typeof RESOLUTION_STRATEGIES)[number];

/** Whether a conflict still holds rows in the `conflict` bucket (the keys of `CONFLICT_TRANSITIONS`). */
export { CONFLICT_STATUSES, type ConflictStatus } from "./transitions.js";

/** A typed conflict between rows (or between a row and the disk). */
export const Conflict = z
  .object({
    conflict_id: z.string(),
    job_id: z.string(),
    kind: z.enum(CONFLICT_KINDS),
    key: z.string().meta({ description: "What the rows collide on: a path, a path key, a hash or a row id" }),
    row_ids: z.array(z.string()),
    status: z.enum(CONFLICT_STATUSES),
    resolution: z.enum([...RESOLUTION_STRATEGIES, "edited"]).nullable(),
    opened_at: z.string(),
    resolved_at: z.string().nullable(),
    original: DuplicateOriginal.nullable().meta({
      description: "duplicate_content: the copy that is the original (it keeps its planned target), and why",
    }),
  })
  .meta({ id: "FileorgConflict" });
/** A typed conflict. */
export type Conflict = z.infer<typeof Conflict>;

/** `POST /manifest/conflicts/resolve` body. */
export const ResolveRequest = z
  .object({
    resolutions: z
      .array(
        z.object({
          conflict_id: z.string().min(1),
          strategy: z.enum(RESOLUTION_STRATEGIES),
          target_path: PathInput.optional().meta({
            description: `Required for \`manual\`; ${PathInput.description}`,
          }),
          row_id: z
            .string()
            .optional()
            .meta({ description: "For `manual`: which row gets `target_path` (default: the last row)" }),
        }),
      )
      .min(1)
      .max(10_000),
  })
  .meta({ id: "FileorgResolveRequest" });
/** `POST /manifest/conflicts/resolve` body. */
export type ResolveRequest = z.infer<typeof ResolveRequest>;

/** A list of conflicts. */
export const ConflictList = z
  .object({ items: z.array(Conflict), next_cursor: z.string().nullable() })
  .meta({ id: "FileorgConflictList" });
/** A list of conflicts. */
export type ConflictList = z.infer<typeof ConflictList>;
