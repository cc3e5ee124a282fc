import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useCallback, useMemo, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { useEventStream } from "../../api/sse.js";
import { EmptyState, ErrorState, Loading, TableScroll } from "../../ui/states.js";
import { AnalyzeForm } from "./AnalyzeForm.js";
import { foldJobFrame, isActive, jobsNewestFirst } from "./model/job-stream.js";
import { summarizeJob } from "./model/job-summary.js";
import type { Job } from "./types.js";

/** The file organization jobs, newest first, kept live over SSE; start an analyze; cancel or retry. */
export function JobsPage() {
  const client = useQueryClient();
  const jobs = useQuery({ queryKey: ["fileorg", "jobs"], queryFn: () => unwrap(api.GET("/api/jobs", {})) });
  const [live, setLive] = useState<ReadonlyMap<string, Job>>(new Map());
  const onFrame = useCallback(
    (m: { event: string; data: string }) => setLive((prev) => foldJobFrame(prev, m.event, m.data)),
    [],
  );
  useEventStream("/api/jobs/stream", onFrame);
  const rows = useMemo(() => {
    let all: ReadonlyMap<string, Job> = new Map((jobs.data?.items ?? []).map((j) => [j.job_id, j]));
    for (const j of live.values()) all = new Map(all).set(j.job_id, j);
    return jobsNewestFirst(all);
  }, [jobs.data, live]);
  // An apply or rollback shows its analyze job's folders, when that job is in the list too.
  const analyses = useMemo(() => new Map(rows.map((j) => [j.job_id, j])), [rows]);
  const control = useMutation({
    mutationFn: ({ id, verb }: { id: string; verb: "cancel" | "retry" }) =>
      verb === "cancel"
        ? unwrap(api.POST("/api/jobs/{job_id}/cancel", { params: { path: { job_id: id } } }))
        : unwrap(api.POST("/api/jobs/{job_id}/retry", { params: { path: { job_id: id } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "jobs"] }),
  });
  return (
    <section>
      <h1>Files</h1>
      <nav aria-label="File organization" className="subnav">
        <Link to="/files/inbox">Inbox</Link> · <Link to="/files/preferences">Preferences</Link>
      </nav>
      <AnalyzeForm />
      <h2>Jobs</h2>
      {jobs.isPending ? <Loading what="jobs" /> : null}
      {jobs.isError ? <ErrorState error={jobs.error} /> : null}
      {control.isError ? <ErrorState error={control.error} title="The job could not be changed" /> : null}
      {jobs.data !== undefined && rows.length === 0 ? (
        <EmptyState title="No jobs yet">
          <p>Start an analyze of a folder inside the allowed roots.</p>
        </EmptyState>
      ) : null}
      {rows.length > 0 ? (
        <TableScroll label="Jobs">
          <table className="jobs-table">
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Kind</th>
                <th scope="col">Folders</th>
                <th scope="col">Started</th>
                <th scope="col">Files and moves</th>
                <th scope="col">Outcome</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((job) => (
                <JobRow
                  key={job.job_id}
                  job={job}
                  analyses={analyses}
                  onVerb={(verb) => control.mutate({ id: job.job_id, verb })}
                />
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
    </section>
  );
}

function JobRow({
  job,
  analyses,
  onVerb,
}: {
  job: Job;
  analyses: ReadonlyMap<string, Job>;
  onVerb: (verb: "cancel" | "retry") => void;
}) {
  const pct = Math.round(job.progress * 100);
  const s = summarizeJob(job, analyses);
  return (
    <tr data-job={job.job_id} data-status={job.status} data-kind={s.kind}>
      <td>
        {job.kind === "analyze" && job.status === "succeeded" ? (
          <Link to="/files/jobs/$jobId" params={{ jobId: job.job_id }}>
            {job.job_id}
          </Link>
        ) : (
          <Link to="/files/jobs/$jobId/apply" params={{ jobId: job.manifest_job_id }}>
            {job.job_id}
          </Link>
        )}
      </td>
      <td data-cell="kind">
        <span className={`kind-tag kind-${s.kind}`}>{s.kindLabel}</span>
        <span className="muted kind-note">{s.kindNote}</span>
      </td>
      <td data-cell="folders" className="folders">
        {s.source === null ? (
          <span className="muted">from job {job.manifest_job_id}</span>
        ) : (
          <>
            <span>{s.source}</span>
            {s.output === null || s.output === s.source ? null : <span> → {s.output}</span>}
          </>
        )}
      </td>
      <td data-cell="date">
        <time dateTime={job.created_at}>{new Date(job.created_at).toLocaleString()}</time>
      </td>
      <td data-cell="counts">{[s.files, s.moves].filter((t) => t !== null).join(" · ") || "—"}</td>
      <td data-cell="outcome">
        <span className={`badge tone-${s.tone}`}>{s.outcome}</span>
        {job.error === null ? null : <span className="muted"> {job.error.message}</span>}
        {isActive(job.status) ? (
          <div>
            <progress max={100} value={pct} aria-label={`${job.job_id} progress`} /> {pct}% {job.phase}
          </div>
        ) : null}
      </td>
      <td>
        {isActive(job.status) ? (
          <button type="button" onClick={() => onVerb("cancel")}>
            Cancel
          </button>
        ) : null}
        {job.status === "failed" || job.status === "cancelled" ? (
          <button type="button" onClick={() => onVerb("retry")}>
            Retry
          </button>
        ) : null}
      </td>
    </tr>
  );
}
