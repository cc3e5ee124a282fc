import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { TableScroll } from "../../ui/states.js";
import { type BulkOutcome, bulkOutcome } from "./model/runs-filter.js";
import type { RunSource } from "./run-names.js";

type Run = components["schemas"]["Run"];
const FINISHED = new Set(["success", "failed", "cancelled"]);

function SourceCell({ source }: { source: RunSource }) {
  return (
    <td data-testid="run-source">
      {source.kind === "template" ? (
        <Link to="/templates/$templateId" params={{ templateId: source.id }}>
          {source.name}
        </Link>
      ) : (
        <Link to="/flows/$flowId" params={{ flowId: source.id }}>
          {source.name}
        </Link>
      )}{" "}
      <span className="muted">({source.kind})</span>
    </td>
  );
}

/** Cancels each selected run (one request each, all settled); refreshes the lists. */
function useBulkCancel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: string[]): Promise<BulkOutcome> => {
      const settled = await Promise.allSettled(
        ids.map((id) => unwrap(api.POST("/api/runs/{run_id}/cancel", { params: { path: { run_id: id } } }))),
      );
      return bulkOutcome(ids, settled);
    },
    onSettled: () => void queryClient.invalidateQueries({ queryKey: ["runs"] }),
  });
}

/** The runs with a checkbox each (runs that have not ended) and "Cancel selected". */
export function RunsTable({ runs, sourceOf }: { runs: Run[]; sourceOf: (run: Run) => RunSource }) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const bulk = useBulkCancel();
  const cancellable = runs.filter((r) => !FINISHED.has(r.status)).map((r) => r.id);
  const chosen = cancellable.filter((id) => selected.has(id));
  const toggle = (id: string, on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const allOn = cancellable.length > 0 && chosen.length === cancellable.length;
  return (
    <>
      <div className="toolbar">
        <button
          type="button"
          disabled={chosen.length === 0 || bulk.isPending}
          onClick={() => bulk.mutate(chosen, { onSuccess: () => setSelected(new Set()) })}
        >
          Cancel selected ({chosen.length})
        </button>
        {bulk.data === undefined ? null : (
          <span role="status" data-testid="bulk-outcome">
            Cancelled {bulk.data.cancelled}.{bulk.data.failed.map((f) => ` ${f.id}: ${f.message}`).join("")}
          </span>
        )}
      </div>
      <TableScroll label="Runs">
        <table>
          <thead>
            <tr>
              <th>
                <input
                  type="checkbox"
                  aria-label="Select every run that has not ended"
                  checked={allOn}
                  disabled={cancellable.length === 0}
                  onChange={(e) => setSelected(e.target.checked ? new Set(cancellable) : new Set())}
                />
              </th>
              <th>Run</th>
              <th>Status</th>
              <th>Template / flow</th>
              <th>Created</th>
              <th>Reason</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.id}>
                <td>
                  {FINISHED.has(run.status) ? null : (
                    <input
                      type="checkbox"
                      aria-label={`Select run ${run.id}`}
                      checked={selected.has(run.id)}
                      onChange={(e) => toggle(run.id, e.target.checked)}
                    />
                  )}
                </td>
                <td>
                  <Link to="/runs/$runId" params={{ runId: run.id }}>
                    {run.id}
                  </Link>
                </td>
                <td>
                  <span className={`badge badge-${run.status}`}>{run.status}</span>
                </td>
                <SourceCell source={sourceOf(run)} />
                <td>{new Date(run.created_at).toLocaleString()}</td>
                <td>{run.reason ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </>
  );
}
