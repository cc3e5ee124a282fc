import { type AnyRoute, createRoute, lazyRouteComponent } from "@tanstack/react-router";

/** The explorer's URL state: where the document comes from, picked filter values, rows compared. */
export interface ComparisonSearch {
  source?: "server" | "pasted";
  /** Picked filter values, `"<groupId>:<valueId>"`. */
  g?: string[];
  /** Ids of the rows compared side by side (2–4). */
  compare?: string[];
  /** The text search over row names and descriptions. */
  q?: string;
}

function strings(value: unknown): string[] | undefined {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string" && value !== "") return value.split(",");
  return undefined;
}

/** Parses the explorer's search params, dropping anything malformed. */
export function comparisonSearch(search: Record<string, unknown>): ComparisonSearch {
  const out: ComparisonSearch = {};
  if (search.source === "pasted" || search.source === "server") out.source = search.source;
  const g = strings(search.g);
  if (g !== undefined && g.length > 0) out.g = g;
  const compare = strings(search.compare);
  if (compare !== undefined && compare.length > 0) out.compare = compare.slice(0, 4);
  if (typeof search.q === "string" && search.q.trim() !== "") out.q = search.q;
  return out;
}

/** The Comparison part: `/comparison`. */
export function comparisonRoutes<P extends AnyRoute>(parent: P) {
  const explorer = createRoute({
    getParentRoute: () => parent,
    path: "/comparison",
    validateSearch: comparisonSearch,
    component: lazyRouteComponent(() => import("./ComparisonPage.js"), "ComparisonPage"),
  });
  return [explorer] as const;
}
