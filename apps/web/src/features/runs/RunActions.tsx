import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";
import { rerunParams } from "./model/run-model.js";
import { RetryRun } from "./RetryRun.js";
import { useStartRun } from "./StartRunForm.js";

type Run = components["schemas"]["Run"];
const FINISHED = new Set(["success", "failed", "cancelled"]);

/** Cancels a run (`POST /api/runs/{id}/cancel`); refreshes the run and the lists. */
export function useCancelRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) =>
      unwrap(api.POST("/api/runs/{run_id}/cancel", { params: { path: { run_id: runId } } })),
    onSettled: (_data, _error, runId) => {
      void queryClient.invalidateQueries({ queryKey: ["run", runId] });
      void queryClient.invalidateQueries({ queryKey: ["runs"] });
    },
  });
}

/**
 * Cancel (while the run has not ended), retry a failed or cancelled run from where it stopped, and re-run
 * from the start with the same template or flow and params. Secrets (`secretKeys`, the template's) are not
 * kept: a retry asks for them, and a run that had them is re-run from its template's form instead.
 */
export function RunActions({ run, secretKeys }: { run: Run; secretKeys: readonly string[] }) {
  const cancel = useCancelRun();
  const start = useStartRun();
  const again = rerunParams(run.params, secretKeys);
  const origin = run.template_id === null ? { flow_id: run.flow_id } : { template_id: run.template_id };
  return (
    <>
      <RetryRun run={run} secretKeys={secretKeys} />
      <fieldset className="toolbar" aria-label="Run actions">
        {FINISHED.has(run.status) ? null : (
          <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate(run.id)}>
            Cancel run
          </button>
        )}
        {again.masked.length > 0 && run.template_id !== null ? (
          <Link to="/templates/$templateId" params={{ templateId: run.template_id }}>
            Re-run (enter the secrets {again.masked.join(", ")} again)
          </Link>
        ) : (
          <button
            type="button"
            disabled={start.isPending}
            onClick={() => start.mutate({ ...origin, params: again.params })}
          >
            Re-run with the same params
          </button>
        )}
        {cancel.isError ? <ErrorState error={cancel.error} title="The run was not cancelled" /> : null}
        {start.isError ? <ErrorState error={start.error} title="The run was not started again" /> : null}
      </fieldset>
    </>
  );
}
