import { useQueries } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";

/** What a run was started from, as a person reads it. */
export interface RunSource {
  kind: "template" | "flow";
  id: string;
  /** The template's or flow's name; its id until the name has loaded (or if it cannot be). */
  name: string;
}

/**
 * Names for the templates and flows runs were started from. A run carries only ids; each distinct id is
 * asked for once (`GET /api/templates/{id}`, `GET /api/flows/{id}`), under the same query keys the
 * template and flow pages use, so the names are shared with them.
 */
export function useRunSources(
  runs: ReadonlyArray<{ template_id: string | null; flow_id: string }>,
): (run: { template_id: string | null; flow_id: string }) => RunSource {
  const templateIds = [...new Set(runs.flatMap((r) => (r.template_id === null ? [] : [r.template_id])))];
  const flowIds = [...new Set(runs.flatMap((r) => (r.template_id === null ? [r.flow_id] : [])))];
  const templates = useQueries({
    queries: templateIds.map((id) => ({
      queryKey: ["template", id],
      queryFn: () =>
        unwrap(api.GET("/api/templates/{template_id}", { params: { path: { template_id: id } } })),
      staleTime: 60_000,
    })),
  });
  const flows = useQueries({
    queries: flowIds.map((id) => ({
      queryKey: ["flow", id],
      queryFn: () => unwrap(api.GET("/api/flows/{flow_id}", { params: { path: { flow_id: id } } })),
      staleTime: 60_000,
    })),
  });
  const names = new Map<string, string>();
  for (const q of [...templates, ...flows]) if (q.data !== undefined) names.set(q.data.id, q.data.name);
  return (run) => {
    const kind = run.template_id === null ? "flow" : "template";
    const id = run.template_id ?? run.flow_id;
    return { kind, id, name: names.get(id) ?? id };
  };
}
