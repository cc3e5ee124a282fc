import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";

type Run = components["schemas"]["Run"];

/** Retries a run (`POST /api/runs/{id}/retry`) and opens the retry (a new one, or the one it already had). */
function useRetryRun(runId: string) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (secrets: Record<string, string>) =>
      unwrap(
        api.POST("/api/runs/{run_id}/retry", { params: { path: { run_id: runId } }, body: { secrets } }),
      ),
    onSuccess: (retry) => {
      void queryClient.invalidateQueries({ queryKey: ["runs"] });
      void navigate({ to: "/runs/$runId", params: { runId: retry.id } });
    },
  });
}

/**
 * Retry of a failed or cancelled run from the step it stopped at: a new run with this run's params and
 * vars that starts there (a gate whose answer that step sends asks again). The template's secret params
 * are asked for again, since an ended run keeps none. A run is retried once: a second click opens the
 * retry it already has.
 */
export function RetryRun({ run, secretKeys }: { run: Run; secretKeys: readonly string[] }) {
  const retry = useRetryRun(run.id);
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  if (run.current_step_id === null || (run.status !== "failed" && run.status !== "cancelled")) return null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    retry.mutate(secrets);
  };
  return (
    <form onSubmit={submit} aria-label="Retry the run" className="toolbar">
      {secretKeys.map((key) => (
        <label key={key}>
          {key}{" "}
          <input
            type="password"
            required
            autoComplete="off"
            value={secrets[key] ?? ""}
            onChange={(e) => setSecrets((prev) => ({ ...prev, [key]: e.target.value }))}
          />
        </label>
      ))}
      <button type="submit" disabled={retry.isPending} title="A new run with this run's params and vars">
        Retry from step {run.current_step_id}
      </button>
      {retry.isError ? <ErrorState error={retry.error} title="The run was not retried" /> : null}
    </form>
  );
}
