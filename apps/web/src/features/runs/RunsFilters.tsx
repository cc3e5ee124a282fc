import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { api, unwrap } from "../../api/client.js";
import type { RunStatus, RunsSearch } from "./routes.js";

const FILTERS: (RunStatus | "all")[] = [
  "all",
  "waiting_otp",
  "waiting_user",
  "running",
  "queued",
  "success",
  "failed",
  "cancelled",
];

/** The runs list's filters (status, template or flow, creation time range), kept in the URL. */
export function RunsFilters() {
  const search = useSearch({ from: "/runs" });
  const navigate = useNavigate({ from: "/runs" });
  const set = (patch: { [K in keyof RunsSearch]?: RunsSearch[K] | undefined }) =>
    void navigate({
      search: (prev: RunsSearch) => {
        const next: Record<string, string> = {};
        for (const [k, v] of Object.entries({ ...prev, ...patch })) if (v) next[k] = v;
        return next as RunsSearch;
      },
    });
  const templates = useQuery({
    queryKey: ["templates"],
    queryFn: () => unwrap(api.GET("/api/templates", {})),
    staleTime: 60_000,
  });
  const flows = useQuery({
    queryKey: ["flows"],
    queryFn: () => unwrap(api.GET("/api/flows", {})),
    staleTime: 60_000,
  });
  return (
    <div>
      <fieldset className="toolbar" aria-label="Status filter">
        {FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            aria-pressed={(search.status ?? "all") === f}
            onClick={() => set({ status: f === "all" ? undefined : f })}
          >
            {f}
          </button>
        ))}
      </fieldset>
      <div className="toolbar">
        <label>
          Template or flow{" "}
          <select value={search.source ?? ""} onChange={(e) => set({ source: e.target.value })}>
            <option value="">Any</option>
            <optgroup label="Templates">
              {templates.data?.items.map((t) => (
                <option key={t.id} value={`template:${t.id}`}>
                  {t.name}
                </option>
              ))}
            </optgroup>
            <optgroup label="Flows">
              {flows.data?.items.map((f) => (
                <option key={f.id} value={`flow:${f.id}`}>
                  {f.name}
                </option>
              ))}
            </optgroup>
          </select>
        </label>
        <label>
          Created from{" "}
          <input
            type="datetime-local"
            value={search.from ?? ""}
            onChange={(e) => set({ from: e.target.value })}
          />
        </label>
        <label>
          to{" "}
          <input
            type="datetime-local"
            value={search.to ?? ""}
            onChange={(e) => set({ to: e.target.value })}
          />
        </label>
        {search.source || search.from || search.to ? (
          <button type="button" onClick={() => set({ source: undefined, from: undefined, to: undefined })}>
            Clear filters
          </button>
        ) : null}
      </div>
    </div>
  );
}
