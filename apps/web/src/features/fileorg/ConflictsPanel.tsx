import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";
import { ErrorState } from "../../ui/states.js";
import type { Conflict } from "./types.js";

type Strategy = "rename" | "skip" | "keep_both" | "move_to_duplicates";
const WORDS: Record<Strategy, string> = {
  rename: "Rename (add (2), (3)…)",
  skip: "Skip these files",
  keep_both: "Keep both",
  move_to_duplicates: "Move copies to _duplicates",
};

/** What each conflict kind may be resolved with (`manual` is an inline target edit in the side panel). */
function strategiesOf(kind: Conflict["kind"]): Strategy[] {
  return kind === "duplicate_content"
    ? ["keep_both", "skip", "move_to_duplicates"]
    : ["rename", "skip", "keep_both"];
}

/** The open conflicts of a manifest (one query shared by the summary and the panel). */
export function openConflictsOptions(jobId: string) {
  return queryOptions({
    queryKey: ["fileorg", "manifest", jobId, "conflicts"],
    queryFn: () =>
      unwrap(
        api.GET("/api/jobs/{job_id}/manifest/conflicts", {
          params: { path: { job_id: jobId }, query: { status: "open" } },
        }),
      ),
  });
}

/** The id of the conflicts panel: the summary's "Resolve N conflicts" focuses it. */
export const CONFLICTS_ID = "conflicts";

/** The open conflicts of a manifest, each with its resolutions. */
export function ConflictsPanel({ jobId, revision }: { jobId: string; revision: number }) {
  const client = useQueryClient();
  const conflicts = useQuery(openConflictsOptions(jobId));
  const resolve = useMutation({
    mutationFn: (r: { conflict_id: string; strategy: Strategy }) =>
      unwrap(
        api.POST("/api/jobs/{job_id}/manifest/conflicts/resolve", {
          params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
          body: { resolutions: [r] },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] }),
  });
  const items = conflicts.data?.items ?? [];
  return (
    <section className="conflicts card" aria-label="Conflicts" id={CONFLICTS_ID} tabIndex={-1}>
      <h2>Conflicts ({items.length} open)</h2>
      {conflicts.isError ? <ErrorState error={conflicts.error} /> : null}
      {resolve.isError ? <ErrorState error={resolve.error} title="The resolution was refused" /> : null}
      {items.length === 0 && conflicts.data !== undefined ? <p>No open conflicts.</p> : null}
      <ul>
        {items.map((c) => (
          <li key={c.conflict_id} data-conflict={c.conflict_id}>
            <strong>{c.kind.replaceAll("_", " ")}</strong> on <code>{c.key}</code> ({c.row_ids.length} rows){" "}
            {strategiesOf(c.kind).map((s) => (
              <button
                key={s}
                type="button"
                onClick={() => resolve.mutate({ conflict_id: c.conflict_id, strategy: s })}
              >
                {WORDS[s]}
              </button>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
