import { type FormEvent, useState } from "react";
import type { components } from "../../api/schema.js";
import { type ReviewSearch, triageFilter } from "./model/review-search.js";

export type TriageBody = components["schemas"]["BatchTriageRequest"];
type Summary = components["schemas"]["ReviewSummary"];
type Result = components["schemas"]["BatchTriageResult"];

const VERBS: Record<TriageBody["action"], string> = {
  approve: "Approved",
  skip: "Skipped",
  set_category: "Set the category of",
  set_target: "Set the target of",
};

/** What a triage did, for the live region: `Skipped report.txt`, `Approved 3 rows`, `Skipped 120 matching rows`. */
export function triageWords(body: TriageBody, names: ReadonlyMap<string, string>, result?: Result): string {
  const verb = VERBS[body.action];
  const ids = body.row_ids ?? [];
  const [only] = ids;
  if (ids.length === 1 && only !== undefined) return `${verb} ${names.get(only) ?? "1 row"}`;
  if (ids.length > 0) return `${verb} ${ids.length} rows`;
  const n = result?.matched_count;
  return `${verb} ${n === undefined ? "the" : n} matching row${n === 1 ? "" : "s"}`;
}

/**
 * How many rows the filters match, when known: every one is loaded, or only the bucket narrows them and
 * the summary counts that bucket.
 */
export function matchingCount(
  search: ReviewSearch,
  loaded: number,
  complete: boolean,
  summary: Summary | undefined,
): number | undefined {
  if (complete) return loaded;
  if (summary === undefined) return undefined;
  const filter = triageFilter(search);
  if (filter === undefined) return summary.total;
  const keys = Object.keys(filter);
  return keys.length === 1 && filter.bucket !== undefined ? summary.buckets[filter.bucket] : undefined;
}

/** The rows a bulk action acts on: the selection, or every row matching the filters (all of them if none). */
export function bulkTarget(
  search: ReviewSearch,
  selected: ReadonlySet<string>,
  allMatching: boolean,
): Pick<TriageBody, "row_ids" | "filter" | "all"> | undefined {
  if (!allMatching) return selected.size === 0 ? undefined : { row_ids: [...selected] };
  const filter = triageFilter(search);
  // The reason comes from the address bar as text; the server refuses one it does not know (400).
  return filter === undefined ? { all: true } : { filter: filter as NonNullable<TriageBody["filter"]> };
}

interface BulkEditProps {
  search: ReviewSearch;
  selected: ReadonlySet<string>;
  /** Whether the bar acts on every row matching the filters rather than on the selection. */
  allMatching: boolean;
  setAllMatching: (all: boolean) => void;
  loaded: number;
  complete: boolean;
  summary: Summary | undefined;
  categories: readonly string[];
  pending: boolean;
  said: string;
  onTriage: (body: TriageBody) => void;
}

/**
 * The selection bar: what is selected (rows, or every row matching the filters), and the bulk edits —
 * approve, skip, set a category, set a target folder or template — on it. Keys stay as they were.
 */
export function BulkEdit(props: BulkEditProps) {
  const { search, selected, allMatching, pending } = props;
  const [category, setCategory] = useState("");
  const [target, setTarget] = useState("");
  const scope = bulkTarget(search, selected, allMatching);
  const count = matchingCount(search, props.loaded, props.complete, props.summary);
  const all = count === undefined ? "all matching rows" : `all ${count} matching rows`;
  const act = (action: TriageBody["action"], value?: string) => {
    if (scope !== undefined) props.onTriage({ ...scope, action, ...(value === undefined ? {} : { value }) });
  };
  const submit = (e: FormEvent, action: "set_category" | "set_target", value: string) => {
    e.preventDefault();
    if (value.trim() !== "") act(action, value.trim());
  };
  const disabled = scope === undefined || pending;
  return (
    <div className="selection-bar" data-testid="bulk-edit">
      <span aria-live="polite">
        {allMatching ? `Selected ${all}` : `${selected.size} selected`} · {props.loaded} rows loaded
        {props.complete ? "" : " (more on scroll)"}
      </span>
      <button type="button" aria-pressed={allMatching} onClick={() => props.setAllMatching(!allMatching)}>
        {allMatching ? "Clear the selection" : `Select ${all}`}
      </button>
      <span className="muted">keys: j/k move, x select, a approve, s skip</span>
      <button type="button" disabled={disabled} onClick={() => act("approve")}>
        Approve selected
      </button>
      <button type="button" disabled={disabled} onClick={() => act("skip")}>
        Skip selected
      </button>
      <form onSubmit={(e) => submit(e, "set_category", category)} className="inline-form">
        <select
          aria-label="Category for the selected rows"
          value={category}
          onChange={(e) => setCategory(e.target.value)}
        >
          <option value="">Category…</option>
          {props.categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="submit" disabled={disabled || category === ""}>
          Set category
        </button>
      </form>
      <form onSubmit={(e) => submit(e, "set_target", target)} className="inline-form">
        <input
          aria-label="Target folder or template for the selected rows"
          placeholder="Target folder or {template}"
          value={target}
          onChange={(e) => setTarget(e.target.value)}
        />
        <button type="submit" disabled={disabled || target.trim() === ""}>
          Set target
        </button>
      </form>
      <span className="triage-said" role="status">
        {props.said}
      </span>
    </div>
  );
}
