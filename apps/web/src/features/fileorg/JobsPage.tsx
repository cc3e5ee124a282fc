import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";

/** The file organization jobs, newest first. */
export function JobsPage() {
  const jobs = useQuery({ queryKey: ["jobs"], queryFn: () => unwrap(api.GET("/api/jobs", {})) });
  return (
    <section>
      <h1>Files</h1>
      {jobs.isPending ? <Loading what="jobs" /> : null}
      {jobs.isError ? <ErrorState error={jobs.error} /> : null}
      {jobs.data !== undefined && jobs.data.items.length === 0 ? (
        <EmptyState title="No jobs yet">
          <p>Start an analyze of a folder inside the allowed roots.</p>
        </EmptyState>
      ) : null}
      {jobs.data !== undefined && jobs.data.items.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>Job</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {jobs.data.items.map((job) => (
              <tr key={job.job_id}>
                <td>{job.job_id}</td>
                <td>
                  <span className="badge">{job.status}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
