import { relative } from "node:path";
import { labelReason, type ManifestRow } from "@vetted/fileorg";
import Table from "cli-table3";
import type { Colors } from "picocolors/types";
import type { PlanJson } from "../plan.js";
import { formatBytes, plural } from "./style.js";
import { renderTree } from "./tree.js";

/** How many rows needing review the table shows before pointing at `vetted review`. */
export const REVIEW_TABLE_LIMIT = 50;

const ATTENTION = ["blocked", "conflict", "needs_review"] as const;

function bucketColor(bucket: string, c: Colors): (text: string) => string {
  if (bucket === "blocked") return c.red;
  if (bucket === "conflict") return c.magenta;
  if (bucket === "needs_review") return c.yellow;
  return c.green;
}

/** Code-point order (the same on every machine, unlike locale order). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A path relative to a folder when inside it (`./x` stays readable), else as it is. */
export function shortPath(path: string, base: string): string {
  const rel = relative(base, path);
  return rel === "" || rel.startsWith("..") ? path : rel;
}

/** The reason of a row, in words: its error, else its reason codes' labels. */
export function reasonOf(row: ManifestRow): string {
  if (row.error !== null) return `${row.error.code}: ${row.error.message}`;
  const codes = row.reason_codes.filter((code) => code !== "MIME_FROM_MAGIC");
  return codes.length === 0 ? "" : codes.map(labelReason).join("; ");
}

/** The table of rows needing review: bucket, reason, source → target. */
export function renderReviewTable(
  plan: PlanJson,
  c: Colors,
  limit = REVIEW_TABLE_LIMIT,
  command = "vetted",
): string[] {
  const rows = plan.rows
    .filter((row) => (ATTENTION as readonly string[]).includes(row.review_bucket))
    .sort(
      (a, b) =>
        ATTENTION.indexOf(a.review_bucket as never) - ATTENTION.indexOf(b.review_bucket as never) ||
        compareText(a.source_path, b.source_path),
    );
  if (rows.length === 0) return [c.green("Nothing needs review.")];
  const table = new Table({
    head: ["bucket", "reason", "source → target"],
    style: { head: c.isColorSupported ? ["cyan"] : [], border: c.isColorSupported ? ["grey"] : [] },
    wordWrap: true,
    colWidths: [14, 40, 70],
  });
  for (const row of rows.slice(0, limit)) {
    const target =
      row.action === "skip"
        ? "(stays)"
        : `${shortPath(row.target_path, plan.summary.output_dir)}${row.action === "copy" ? " (copy; the source stays)" : ""}`;
    table.push([
      bucketColor(row.review_bucket, c)(row.review_bucket),
      reasonOf(row),
      `${shortPath(row.source_path, plan.summary.source_dir)} → ${target}`,
    ]);
  }
  const lines = [c.bold(`Needs review (${rows.length})`), ...table.toString().split("\n")];
  if (rows.length > limit)
    lines.push(c.dim(`… and ${rows.length - limit} more: ${command} review ${plan.job_id}`));
  return lines;
}

/** What a conflict is about: a path (relative to the output folder) or a content hash, shortened. */
function conflictKey(key: string, outputDir: string): string {
  return /^[0-9a-f]{64}$/.test(key) ? `content ${key.slice(0, 12)}…` : shortPath(key, outputDir);
}

/** The open conflicts, one line each. */
export function renderConflicts(plan: PlanJson, c: Colors): string[] {
  const open = plan.conflicts
    .filter((conflict) => conflict.status === "open")
    .sort((a, b) => compareText(a.kind, b.kind) || compareText(a.key, b.key));
  if (open.length === 0) return [];
  return [
    c.bold(`Conflicts (${open.length})`),
    ...open.map(
      (conflict) =>
        `  ${c.magenta(conflict.kind)} ${conflictKey(conflict.key, plan.summary.output_dir)} — ${plural(conflict.row_ids.length, "row")}`,
    ),
  ];
}

/** The totals line: rows per bucket, what moves, bytes. */
export function renderTotals(plan: PlanJson, c: Colors): string[] {
  const s = plan.summary;
  const buckets = ["auto_safe", "needs_review", "conflict", "blocked"]
    .map((bucket) => bucketColor(bucket, c)(`${s.by_bucket[bucket] ?? 0} ${bucket}`))
    .join(", ");
  return [
    `${c.bold("Totals")}: ${plural(s.rows, "file")} (${formatBytes(s.bytes)}): ${buckets}`,
    `  ${s.by_action.move ?? 0} to move, ${s.by_action.skip ?? 0} to leave in place, ${s.open_conflicts} open conflicts`,
  ];
}

/** The whole plan as text: header, target tree, review table, conflicts and totals. */
export function renderPlan(plan: PlanJson, c: Colors, command = "vetted"): string {
  const s = plan.summary;
  return [
    c.bold(`Plan ${plan.job_id}: ${s.source_dir} → ${s.output_dir}`),
    "",
    c.bold("Target folders"),
    ...renderTree(s.output_dir, plan.tree, c),
    "",
    ...renderReviewTable(plan, c, REVIEW_TABLE_LIMIT, command),
    "",
    ...renderConflicts(plan, c),
    ...(plan.conflicts.some((x) => x.status === "open") ? [""] : []),
    ...renderTotals(plan, c),
  ].join("\n");
}
