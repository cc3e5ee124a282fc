/**
 * What the jobs list says about one job, from the job the API returns (its params and result): the kind
 * (a dry run is told apart from an apply), the folders, the counts and the outcome. Pure.
 */

/** The fields of a job a summary reads. */
export interface SummarizedJob {
  job_id: string;
  kind: "analyze" | "apply" | "rollback";
  status: string;
  manifest_job_id: string;
  params: Record<string, unknown>;
  result: Record<string, unknown> | null;
  completed_with_errors: boolean;
  error: { code: string; message: string } | null;
}

/** How a job is shown in the Kind column; `dry-run` moved nothing, `apply` and `rollback` moved files. */
export type KindTag = "analyze" | "dry-run" | "apply" | "rollback";

/** The outcome's tone, for its badge. */
export type Tone = "ok" | "warn" | "danger" | "active";

export interface JobSummary {
  kind: KindTag;
  kindLabel: string;
  /** What the kind means for the files on disk. */
  kindNote: string;
  source: string | null;
  output: string | null;
  /** "12 files": the analyzed files, or the rows an apply selected. */
  files: string | null;
  /** "8 moved, 1 failed" / "would move 8" / "8 moved back". */
  moves: string | null;
  outcome: string;
  tone: Tone;
}

function num(record: Record<string, unknown> | null, key: string): number | undefined {
  const value = record?.[key];
  return typeof value === "number" ? value : undefined;
}

function str(record: Record<string, unknown> | undefined, key: string): string | null {
  const value = record?.[key];
  return typeof value === "string" ? value : null;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function kindOf(job: SummarizedJob): Pick<JobSummary, "kind" | "kindLabel" | "kindNote"> {
  if (job.kind === "analyze") return { kind: "analyze", kindLabel: "Analyze", kindNote: "plans moves" };
  if (job.kind === "rollback")
    return { kind: "rollback", kindLabel: "Rollback", kindNote: "moves files back" };
  return job.params.dry_run === true
    ? { kind: "dry-run", kindLabel: "Dry run", kindNote: "nothing moved" }
    : { kind: "apply", kindLabel: "Apply", kindNote: "moves files" };
}

function countsOf(job: SummarizedJob, kind: KindTag): Pick<JobSummary, "files" | "moves"> {
  const r = job.result;
  const failed = num(r, "failed") ?? num(r, "would_fail") ?? 0;
  const failedText = failed > 0 ? `, ${failed} failed` : "";
  if (kind === "analyze") {
    const files = num(r, "files");
    return { files: files === undefined ? null : plural(files, "file"), moves: null };
  }
  const rows = num(r, "rows");
  const files = rows === undefined ? null : plural(rows, "file");
  if (kind === "dry-run") {
    const would = num(r, "would_move");
    return { files, moves: would === undefined ? null : `would move ${would}${failedText}` };
  }
  if (kind === "rollback") {
    const back = num(r, "moved_back");
    return { files, moves: back === undefined ? null : `${back} moved back${failedText}` };
  }
  const moved = num(r, "moved");
  return { files, moves: moved === undefined ? null : `${moved} moved${failedText}` };
}

function outcomeOf(job: SummarizedJob): Pick<JobSummary, "outcome" | "tone"> {
  switch (job.status) {
    case "succeeded":
      if (job.completed_with_errors) {
        const rows = num(job.result, "failed_rows");
        const detail = rows === undefined ? "" : ` (${plural(rows, "row")} failed)`;
        return { outcome: `Succeeded with errors${detail}`, tone: "warn" };
      }
      return { outcome: "Succeeded", tone: "ok" };
    case "failed":
      return { outcome: job.error === null ? "Failed" : `Failed: ${job.error.code}`, tone: "danger" };
    case "cancelled":
      return { outcome: "Cancelled", tone: "danger" };
    case "cancelling":
      return { outcome: "Cancelling…", tone: "active" };
    case "queued":
      return { outcome: "Queued", tone: "active" };
    default:
      return { outcome: "Running", tone: "active" };
  }
}

/**
 * Summarizes a job for the list. An apply or rollback has no folders of its own: they are its analyze
 * job's, looked up in `analyses` (the jobs the list holds); null when that job is not among them.
 */
export function summarizeJob(
  job: SummarizedJob,
  analyses: ReadonlyMap<string, { params: Record<string, unknown> }>,
): JobSummary {
  const kind = kindOf(job);
  const folders = job.kind === "analyze" ? job.params : analyses.get(job.manifest_job_id)?.params;
  return {
    ...kind,
    source: str(folders, "source_dir"),
    output: str(folders, "output_dir"),
    ...countsOf(job, kind.kind),
    ...outcomeOf(job),
  };
}
