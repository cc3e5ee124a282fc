import type { Conflict, ManifestFolder, ManifestRow, ManifestView, RulesFileOutcome } from "@vetted/fileorg";
import type { z } from "zod";
import type { Backend } from "./backend/backend.js";

/** What `vetted organize --json` prints: the whole plan of an analyze job. */
export interface PlanJson {
  job_id: string;
  summary: PlanSummary;
  tree: Array<z.infer<typeof ManifestFolder>>;
  rows: ManifestRow[];
  conflicts: Conflict[];
  /** Set when `--apply` ran. */
  apply_job_id?: string;
  /** Set when `--rules` ran: what each rule of the file changed. */
  rules?: RulesFileOutcome;
}

/** The plan's totals. */
export interface PlanSummary {
  source_dir: string;
  output_dir: string;
  revision: number;
  plan_hash: string;
  rows: number;
  bytes: number;
  /** Rows outside the output directory. */
  outside: number;
  open_conflicts: number;
  by_bucket: Record<string, number>;
  by_category: Record<string, number>;
  by_action: Record<string, number>;
  by_status: Record<string, number>;
}

/** Every row of a manifest, page by page (500 a page). */
export async function allRows(
  backend: Backend,
  jobId: string,
  bucket?: string | undefined,
): Promise<ManifestRow[]> {
  const rows: ManifestRow[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.listRows(jobId, { cursor, limit: 500, bucket });
    rows.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return rows;
}

/** Every conflict of a manifest. */
export async function allConflicts(backend: Backend, jobId: string): Promise<Conflict[]> {
  const conflicts: Conflict[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.listConflicts(jobId, { cursor, limit: 500 });
    conflicts.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor !== undefined);
  return conflicts;
}

function summaryOf(
  view: ManifestView,
  sourceDir: string,
  rows: ManifestRow[],
  conflicts: Conflict[],
): PlanSummary {
  return {
    source_dir: sourceDir,
    output_dir: view.output_dir,
    revision: view.revision,
    plan_hash: view.plan_hash,
    rows: rows.length,
    bytes: rows.reduce((sum, row) => sum + row.size, 0),
    outside: view.outside,
    open_conflicts: conflicts.filter((c) => c.status === "open").length,
    by_bucket: view.by_bucket,
    by_category: view.by_category,
    by_action: view.by_action,
    by_status: view.by_status,
  };
}

/** Reads the whole plan of an analyze job: the folder tree, every row and conflict, and totals. */
export async function loadPlan(backend: Backend, jobId: string): Promise<PlanJson> {
  const job = await backend.getJob(jobId);
  const view = await backend.viewManifest(jobId);
  const rows = await allRows(backend, jobId);
  const conflicts = await allConflicts(backend, jobId);
  const sourceDir = String(job.params.source_dir ?? "");
  return {
    job_id: jobId,
    summary: summaryOf(view, sourceDir, rows, conflicts),
    tree: view.folders,
    rows,
    conflicts,
  };
}
