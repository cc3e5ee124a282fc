import { relative } from "node:path";
import type { Readable, Writable } from "node:stream";
import { isCancel, log, multiselect, select, text } from "@clack/prompts";
import { CATEGORIES, type ReviewQueueRow } from "@vetted/fileorg";
import type { Backend } from "../backend/backend.js";

/** Where the prompts read and draw. */
export interface PromptStreams {
  input: Readable;
  output: Writable;
}

/** What the person chose to do with a selection of rows. */
export type RowAction = "approve" | "skip" | "set_category" | "set_target" | "resolve" | "back";

/** A cancelled prompt (Ctrl-C / Escape) ends the review. */
export class ReviewCancelled extends Error {}

function answered<T>(value: T | symbol): Exclude<T, symbol> {
  if (isCancel(value) || typeof value === "symbol") throw new ReviewCancelled("cancelled");
  return value as Exclude<T, symbol>;
}

/** How a row reads in a list: source → target (relative where possible) and its first reason. */
export function rowLabel(row: ReviewQueueRow, sourceDir: string, outputDir: string): string {
  const rel = (path: string, base: string) => {
    const r = relative(base, path);
    return r === "" || r.startsWith("..") ? path : r;
  };
  const target =
    row.action === "skip"
      ? "(stays)"
      : `${rel(row.target_path, outputDir)}${row.action === "copy" ? " (copy; the source stays)" : ""}`;
  return `${rel(row.source_path, sourceDir)} → ${target} [${row.category}]`;
}

/** Picks rows of one bucket's page; an empty pick means "next bucket". */
export async function pickRows(
  io: PromptStreams,
  rows: readonly ReviewQueueRow[],
  labelOf: (row: ReviewQueueRow) => string,
): Promise<string[]> {
  return answered(
    await multiselect({
      ...io,
      message: "Select rows (space toggles, a selects all, enter confirms; none selected: next bucket)",
      options: rows.map((row) => ({
        value: row.row_id,
        label: labelOf(row),
        hint: row.reasons.map((r) => r.code).join(", "),
      })),
      required: false,
      maxItems: 12,
    }),
  );
}

/** Asks what to do with the selected rows. */
export async function pickAction(io: PromptStreams, count: number, conflicts: boolean): Promise<RowAction> {
  const options: Array<{ value: RowAction; label: string; hint?: string }> = [
    { value: "approve", label: "Approve", hint: "apply them as planned" },
    { value: "skip", label: "Skip", hint: "leave the files where they are" },
    { value: "set_category", label: "Set category" },
    { value: "set_target", label: "Set target", hint: "a folder or a naming template" },
  ];
  if (conflicts) options.push({ value: "resolve", label: "Resolve conflict" });
  options.push({ value: "back", label: "Back", hint: "choose other rows" });
  return answered(await select({ ...io, message: `What to do with ${count} row(s)?`, options }));
}

/** Asks for a category. */
export async function pickCategory(io: PromptStreams, current: string | undefined): Promise<string> {
  return answered(
    await select({
      ...io,
      message: "Category",
      options: CATEGORIES.map((category) => ({ value: category as string, label: category })),
      ...(current === undefined ? {} : { initialValue: current }),
    }),
  );
}

/** Asks for a target: a folder (relative to the output directory, or absolute) or a naming template. */
export async function pickTarget(io: PromptStreams): Promise<string> {
  return answered(
    await text({
      ...io,
      message: "Target folder (relative to the output folder) or naming template",
      placeholder: "documents/invoices or {category}/{yyyy}/{name}{ext}",
      validate: (value) =>
        value === undefined || value.trim() === "" ? "Give a folder or a template" : undefined,
    }),
  ).trim();
}

/** A conflict's key for people: a path relative to the output folder, a hash shortened. */
function keyLabel(key: string, outputDir: string): string {
  if (/^[0-9a-f]{64}$/.test(key)) return `content ${key.slice(0, 12)}…`;
  const rel = relative(outputDir, key);
  return rel === "" || rel.startsWith("..") ? key : rel;
}

/** Resolves the open conflicts of the selected rows, one strategy per conflict. */
export async function resolveSelected(
  io: PromptStreams,
  backend: Backend,
  jobId: string,
  rowIds: readonly string[],
  outputDir: string,
): Promise<number> {
  const wanted = new Set(rowIds);
  const open = (await backend.listConflicts(jobId, { status: "open", limit: 500 })).items.filter((c) =>
    c.row_ids.some((id) => wanted.has(id)),
  );
  if (open.length === 0) {
    log.info("These rows have no open conflict.", { output: io.output });
    return 0;
  }
  const resolutions = [];
  for (const conflict of open) {
    const strategy = answered(
      await select({
        ...io,
        message: `${conflict.kind} on ${keyLabel(conflict.key, outputDir)} (${conflict.row_ids.length} rows)`,
        options: [
          ...(conflict.kind === "duplicate_content"
            ? []
            : [{ value: "rename" as const, label: "Rename", hint: "number the later files: name (2)" }]),
          { value: "keep_both" as const, label: "Keep both" },
          { value: "skip" as const, label: "Skip", hint: "leave the later files where they are" },
        ],
      }),
    );
    resolutions.push({ conflict_id: conflict.conflict_id, strategy });
  }
  await backend.resolveConflicts(jobId, { resolutions });
  return resolutions.length;
}
