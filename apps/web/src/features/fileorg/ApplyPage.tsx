import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useCallback, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { useEventStream } from "../../api/sse.js";
import { ErrorState } from "../../ui/states.js";
import { ApplyConfirm, needsConfirmation } from "./ApplyConfirm.js";
import { ApplyOutcome, isApplyResult } from "./ApplyOutcome.js";
import type { ApplyPlan, Job } from "./types.js";

/** Apply of one manifest: dry-run summary, apply with progress, report, rollback, audit with its verdict. */
export function ApplyPage({ jobId }: { jobId: string }) {
  const client = useQueryClient();
  const [applyJob, setApplyJob] = useState<Job | undefined>();
  const [dry, setDry] = useState<Job | undefined>();
  const onFrame = useCallback(
    (m: { event: string; data: string }) => {
      if (m.event !== "job") return;
      const job = (JSON.parse(m.data) as { job?: Job }).job;
      if (job === undefined || job.manifest_job_id !== jobId) return;
      if (job.kind === "apply" && job.params.dry_run === true) setDry(job);
      else
        setApplyJob((prev) =>
          prev === undefined || prev.job_id === job.job_id || job.kind !== "analyze" ? job : prev,
        );
    },
    [jobId],
  );
  useEventStream("/api/jobs/stream", onFrame);
  const start = useMutation({
    mutationFn: (body: { dry_run: boolean; plan_hash?: string }) =>
      unwrap(api.POST("/api/jobs/apply", { body: { job_id: jobId, ...body } })),
    onSuccess: (job) => (job.params.dry_run === true ? setDry(job) : setApplyJob(job)),
  });
  // A real apply first asks what it would leave behind; anything unreviewed or in conflict is confirmed.
  const [confirming, setConfirming] = useState<ApplyPlan | undefined>();
  const applyPlanned = (plan: ApplyPlan) =>
    start.mutate({ dry_run: false, ...(plan.plan_hash === null ? {} : { plan_hash: plan.plan_hash }) });
  const plan = useMutation({
    mutationFn: () => unwrap(api.POST("/api/jobs/apply/plan", { body: { job_id: jobId } })),
    onSuccess: (p) => (needsConfirmation(p) ? setConfirming(p) : applyPlanned(p)),
  });
  const [rowIds, setRowIds] = useState("");
  const rollback = useMutation({
    mutationFn: (target: string) => {
      const ids = rowIds.split(/[\s,]+/).filter(Boolean);
      return unwrap(
        api.POST("/api/jobs/rollback", {
          body: { job_id: target, ...(ids.length > 0 ? { row_ids: ids } : {}) },
        }),
      );
    },
    onSuccess: (job) => setApplyJob(job),
  });
  const done = applyJob !== undefined && ["succeeded", "failed", "cancelled"].includes(applyJob.status);
  const report = useQuery({
    queryKey: ["fileorg", "report", applyJob?.job_id],
    enabled: done,
    queryFn: () =>
      unwrap(api.GET("/api/jobs/{job_id}/report", { params: { path: { job_id: applyJob?.job_id ?? "" } } })),
  });
  const audit = useQuery({
    queryKey: ["fileorg", "audit", jobId, applyJob?.status],
    queryFn: () =>
      unwrap(
        api.GET("/api/jobs/{job_id}/audit", { params: { path: { job_id: jobId }, query: { limit: 100 } } }),
      ),
  });
  const lastApply = applyJob?.kind === "apply" ? applyJob : undefined;
  return (
    <section>
      <h1>Apply {jobId}</h1>
      <nav className="subnav" aria-label="Job">
        <Link to="/files">Jobs</Link> ·{" "}
        <Link to="/files/jobs/$jobId" params={{ jobId }}>
          Review
        </Link>
      </nav>
      <div className="card">
        <h2>Dry run</h2>
        <button type="button" onClick={() => start.mutate({ dry_run: true })}>
          Dry run
        </button>
        {dry !== undefined ? (
          <p role="status" data-dry-run={dry.status}>
            Dry run {dry.status}: {summary(dry.result)}
          </p>
        ) : null}
        {dry !== undefined && isApplyResult(dry.result) ? (
          <ApplyOutcome result={dry.result} label="Dry run" />
        ) : null}
      </div>
      <div className="card">
        <h2>Apply</h2>
        <button type="button" onClick={() => plan.mutate()} disabled={plan.isPending}>
          Apply the plan
        </button>
        {confirming !== undefined ? (
          <ApplyConfirm
            plan={confirming}
            onCancel={() => setConfirming(undefined)}
            onConfirm={() => {
              setConfirming(undefined);
              applyPlanned(confirming);
            }}
          />
        ) : null}
        {applyJob !== undefined ? (
          <p data-apply-status={applyJob.status} data-kind={applyJob.kind}>
            {applyJob.kind} {applyJob.status}{" "}
            <progress max={100} value={Math.round(applyJob.progress * 100)} aria-label="Apply progress" />{" "}
            {applyJob.completed_with_errors ? <strong>finished with errors</strong> : null}
          </p>
        ) : null}
        {lastApply !== undefined && isApplyResult(lastApply.result) ? (
          <ApplyOutcome result={lastApply.result} label="Apply" />
        ) : null}
        {plan.isError ? <ErrorState error={plan.error} title="The apply plan was refused" /> : null}
        {start.isError ? <ErrorState error={start.error} title="The apply was refused" /> : null}
      </div>
      {report.data !== undefined ? (
        <section className="card" aria-label="Report">
          <h2>Report</h2>
          <p>
            {report.data.totals.rows} rows, {report.data.bytes_moved} bytes moved; by status{" "}
            {Object.entries(report.data.by_status)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}
          </p>
          {Object.keys(report.data.by_error_code).length > 0 ? (
            <ul aria-label="Failures">
              {Object.entries(report.data.by_error_code).map(([code, n]) => (
                <li key={code}>
                  <code>{code}</code>: {n} row(s)
                </li>
              ))}
            </ul>
          ) : (
            <p>No failures.</p>
          )}
        </section>
      ) : null}
      {lastApply !== undefined && done ? (
        <div className="card">
          <h2>Rollback</h2>
          <label>
            Row ids (empty: the whole job)
            <input name="row_ids" value={rowIds} onChange={(e) => setRowIds(e.target.value)} />
          </label>
          <button type="button" onClick={() => rollback.mutate(lastApply.job_id)}>
            Roll back
          </button>
          {rollback.isError ? <ErrorState error={rollback.error} title="The rollback was refused" /> : null}
        </div>
      ) : null}
      <div className="card">
        <h2>Audit</h2>
        {audit.data !== undefined ? (
          <>
            <p data-chain-valid={String(audit.data.chain_valid)}>
              Hash chain: {audit.data.chain_valid ? "verified" : "BROKEN — an entry was tampered with"}
            </p>
            <ol className="audit">
              {audit.data.items.slice(-30).map((a) => (
                <li key={a.audit_id}>
                  {a.at} {a.actor} {a.action} {a.subject ?? ""}
                </li>
              ))}
            </ol>
          </>
        ) : null}
        {audit.isError ? <ErrorState error={audit.error} /> : null}
      </div>
    </section>
  );
  function summary(result: Job["result"]): string {
    if (result === null) return "…";
    void client;
    return Object.entries(result)
      .filter(([, v]) => typeof v === "number")
      .map(([k, v]) => `${k.replaceAll("_", " ")} ${String(v)}`)
      .join(", ");
  }
}
