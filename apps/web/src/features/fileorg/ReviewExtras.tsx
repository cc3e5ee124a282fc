import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorState } from "../../ui/states.js";
import { type ReviewSearch, viewFromSearch } from "./model/review-search.js";

type QueueRow = components["schemas"]["ReviewQueueRow"];
type Suggestion = components["schemas"]["RowSuggestion"];

/** Suggestions every one of `rows` carries and the plan does not already follow (same field and value). */
export function sharedSuggestions(rows: readonly QueueRow[]): Suggestion[] {
  const [first, ...rest] = rows;
  if (first === undefined) return [];
  return first.suggestions.filter(
    (s) =>
      !s.agrees &&
      rest.every((r) => r.suggestions.some((o) => o.field === s.field && o.value === s.value && !o.agrees)),
  );
}

function fileName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/**
 * Learned suggestions (from a person's earlier edits) for the cursor row or the selection, each accepted with
 * one click: a category through batch triage, a target folder through a batch edit keeping each file name.
 */
export function LearnedSuggestions(props: { jobId: string; rowIds: readonly string[]; revision: number }) {
  const { jobId, rowIds, revision } = props;
  const client = useQueryClient();
  // Asked for once there is a row to suggest for: never part of the review page's first load.
  const queue = useQuery({
    enabled: rowIds.length > 0,
    queryKey: ["fileorg", "manifest", jobId, "queue"],
    queryFn: () =>
      unwrap(
        api.GET("/api/jobs/{job_id}/review-queue", {
          params: { path: { job_id: jobId }, query: { limit: 200 } as never },
        }),
      ),
  });
  const accept = useMutation({
    mutationFn: async ({ s, rows }: { s: Suggestion; rows: QueueRow[] }) => {
      const ids = rows.map((r) => r.row_id);
      if (s.field === "category") {
        return unwrap(
          api.POST("/api/jobs/{job_id}/review-queue/batch-triage", {
            params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
            body: { action: "set_category", row_ids: ids, value: s.value },
          }),
        );
      }
      const dir = s.value.endsWith("/") ? s.value : `${s.value}/`;
      return unwrap(
        api.POST("/api/jobs/{job_id}/manifest/batch", {
          params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
          body: {
            operations: rows.map((r) => ({
              row_id: r.row_id,
              patch: { target_path: `${dir}${fileName(r.target_path ?? r.source_path)}` },
            })),
          },
        }),
      );
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] }),
  });
  const byId = new Map((queue.data?.items ?? []).map((r) => [r.row_id, r]));
  const rows = rowIds.map((id) => byId.get(id)).filter((r): r is QueueRow => r !== undefined);
  const suggestions = rows.length === rowIds.length ? sharedSuggestions(rows) : [];
  if (rowIds.length === 0 || (suggestions.length === 0 && !accept.isError)) return null;
  const what = rowIds.length === 1 ? "this row" : `the ${rowIds.length} selected rows`;
  return (
    <section className="card suggestions" aria-label="Learned suggestions">
      <h2>Learned suggestions for {what}</h2>
      <ul>
        {suggestions.map((s) => (
          <li key={`${s.field}:${s.value}`}>
            {s.field === "category" ? "Category" : "Target folder"} <code>{s.value}</code>{" "}
            <span className="muted">(strength {s.score.toFixed(2)})</span>{" "}
            <button type="button" disabled={accept.isPending} onClick={() => accept.mutate({ s, rows })}>
              Accept {s.field === "category" ? `category ${s.value}` : `folder ${s.value}`}
            </button>
          </li>
        ))}
      </ul>
      {accept.isError ? <ErrorState error={accept.error} title="The suggestion was refused" /> : null}
    </section>
  );
}

/** The saved-view picker (sets `?view=`) and a button saving the current filters and sort as a view. */
export function SavedViews(props: {
  search: ReviewSearch;
  setSearch: (patch: Partial<ReviewSearch>) => void;
}) {
  const { search, setSearch } = props;
  const client = useQueryClient();
  const [name, setName] = useState("");
  const views = useQuery({
    queryKey: ["fileorg", "views"],
    queryFn: () => unwrap(api.GET("/api/preferences/views", { params: { query: {} as never } })),
  });
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST("/api/preferences/views", {
          body: viewFromSearch(name.trim(), search) as components["schemas"]["ViewItem"],
        }),
      ),
    onSuccess: async (saved) => {
      setName("");
      await client.invalidateQueries({ queryKey: ["fileorg", "views"] });
      setSearch({ view: saved.id, bucket: undefined, reason: undefined, category: undefined, q: undefined });
    },
  });
  return (
    <form
      className="filters saved-views"
      aria-label="Saved views"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim() !== "") save.mutate();
      }}
    >
      <label>
        Saved view
        <select
          name="view"
          value={search.view ?? ""}
          onChange={(e) => setSearch({ view: e.target.value === "" ? undefined : e.target.value })}
        >
          <option value="">None</option>
          {(views.data?.items ?? []).map((v) => (
            <option key={v.id} value={v.id}>
              {v.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        New view name
        <input name="view-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" disabled={name.trim() === "" || save.isPending}>
        Save as view
      </button>
      {save.isError ? <ErrorState error={save.error} title="The view was not saved" /> : null}
      {views.isError ? <ErrorState error={views.error} /> : null}
    </form>
  );
}
