import { describe, expect, it } from "vitest";
import { type SummarizedJob, summarizeJob } from "./job-summary.js";

const analyze: SummarizedJob = {
  job_id: "job_a",
  kind: "analyze",
  status: "succeeded",
  manifest_job_id: "job_a",
  params: { source_dir: "/r/messy", output_dir: "/r/sorted" },
  result: { files: 9, conflicts: 1 },
  completed_with_errors: false,
  error: null,
};
const analyses = new Map([["job_a", analyze]]);

function applyJob(patch: Partial<SummarizedJob>): SummarizedJob {
  return { ...analyze, job_id: "job_b", kind: "apply", manifest_job_id: "job_a", ...patch };
}

describe("summarizeJob", () => {
  it("shows an analyze job's folders, file count and outcome", () => {
    expect(summarizeJob(analyze, analyses)).toEqual({
      kind: "analyze",
      kindLabel: "Analyze",
      kindNote: "plans moves",
      source: "/r/messy",
      output: "/r/sorted",
      files: "9 files",
      moves: null,
      outcome: "Succeeded",
      tone: "ok",
    });
  });

  it("tells a dry run from an apply, with the analyze job's folders", () => {
    const dry = summarizeJob(
      applyJob({
        params: { job_id: "job_a", dry_run: true },
        result: { rows: 8, would_move: 8, would_fail: 0 },
      }),
      analyses,
    );
    expect([dry.kind, dry.kindLabel, dry.kindNote, dry.moves]).toEqual([
      "dry-run",
      "Dry run",
      "nothing moved",
      "would move 8",
    ]);
    expect([dry.source, dry.output]).toEqual(["/r/messy", "/r/sorted"]);
    const real = summarizeJob(
      applyJob({
        params: { job_id: "job_a", dry_run: false },
        result: { rows: 8, moved: 7, failed: 1, failed_rows: 1 },
        completed_with_errors: true,
      }),
      analyses,
    );
    expect([real.kind, real.files, real.moves, real.outcome, real.tone]).toEqual([
      "apply",
      "8 files",
      "7 moved, 1 failed",
      "Succeeded with errors (1 row failed)",
      "warn",
    ]);
  });

  it("says what a rollback moved back, a failure's code, and unknown folders as null", () => {
    const back = summarizeJob(
      applyJob({ kind: "rollback", params: { job_id: "job_b" }, result: { moved_back: 8, failed: 0 } }),
      analyses,
    );
    expect([back.kindLabel, back.moves]).toEqual(["Rollback", "8 moved back"]);
    const failed = summarizeJob(
      applyJob({ status: "failed", result: null, error: { code: "PLAN_CHANGED", message: "x" } }),
      new Map(),
    );
    expect([failed.outcome, failed.tone, failed.source, failed.moves]).toEqual([
      "Failed: PLAN_CHANGED",
      "danger",
      null,
      null,
    ]);
  });
});
