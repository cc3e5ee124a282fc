import { useNavigate } from "@tanstack/react-router";
import type { ComparisonDocument } from "@vetted/comparison";
import { useEffect, useMemo, useRef, useState } from "react";
import { ErrorState } from "../../ui/states.js";
import { CompareView } from "./CompareView.js";
import { type ExploreFacet, explore } from "./model/explore.js";
import type { ComparisonSearch } from "./routes.js";

/** The most rows compared side by side (the columns stay readable). */
export const MAX_COMPARE = 4;
const TYPING_PAUSE_MS = 250;

/**
 * The text search box. It keeps its own text while typing and writes it to the URL after a pause (one
 * history entry per pause, not per key); a URL change it did not write (back/forward) replaces the text.
 */
function SearchBox({ value, onCommit }: { value: string; onCommit: (text: string) => void }) {
  const [text, setText] = useState(value);
  const written = useRef(value);
  const commit = useRef(onCommit);
  commit.current = onCommit;
  useEffect(() => {
    if (value === written.current) return;
    written.current = value;
    setText(value);
  }, [value]);
  useEffect(() => {
    if (text === written.current) return;
    const timer = setTimeout(() => {
      written.current = text;
      commit.current(text);
    }, TYPING_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return (
    <label className="search-box">
      Search rows by name or description
      <input type="search" value={text} onChange={(e) => setText(e.target.value)} />
    </label>
  );
}

function Facets({ facets, onToggle }: { facets: readonly ExploreFacet[]; onToggle: (ref: string) => void }) {
  return (
    <aside aria-label="Filters">
      <p className="muted">Each count is the number of rows you would see with that choice ticked.</p>
      {facets.map((facet) => (
        <fieldset key={facet.id}>
          <legend>{facet.label}</legend>
          {facet.values.map((v) => (
            <label key={v.ref} style={{ display: "block" }}>
              <input type="checkbox" checked={v.picked} onChange={() => onToggle(v.ref)} /> {v.label}{" "}
              <span className="muted" data-testid={`count-${v.ref}`}>
                ({v.count})
              </span>
            </label>
          ))}
        </fieldset>
      ))}
    </aside>
  );
}

/** Facets, text search, row cards and the side-by-side compare of one valid document. */
export function Explorer({ doc, search }: { doc: ComparisonDocument; search: ComparisonSearch }) {
  const navigate = useNavigate({ from: "/comparison" });
  const picked = search.g ?? [];
  const compare = search.compare ?? [];
  const text = search.q ?? "";
  const result = useMemo(() => explore(doc, picked, text), [doc, picked, text]);
  const set = (next: ComparisonSearch) => void navigate({ search: (prev) => ({ ...prev, ...next }) });
  const toggle = (ref: string) =>
    set({ g: picked.includes(ref) ? picked.filter((p) => p !== ref) : [...picked, ref] });
  const setText = (t: string) =>
    void navigate({
      search: ({ q: _previous, ...rest }) => (t.trim() === "" ? rest : { ...rest, q: t }),
    });
  const full = compare.length >= MAX_COMPARE;
  const toggleCompare = (id: string) => {
    if (compare.includes(id)) set({ compare: compare.filter((c) => c !== id) });
    else set({ compare: [...compare, id] });
  };
  const compared = doc.comparisons.filter((r) => compare.includes(r.id));
  return (
    <div className="grid">
      <Facets facets={result.facets} onToggle={toggle} />
      <div>
        {result.error === undefined ? null : (
          <ErrorState error={result.error} title="The filter in the URL is invalid" />
        )}
        <SearchBox value={text} onCommit={setText} />
        <p data-testid="row-count">
          {result.rows.length} of {doc.comparisons.length} rows
          {compare.length > 0 ? ` · ${compare.length} picked to compare` : ""}
        </p>
        <p id="compare-limit" role="status" data-testid="compare-limit">
          {full ? `At most ${MAX_COMPARE} rows can be compared at once: untick one to pick another.` : ""}
        </p>
        {compared.length >= 2 ? <CompareView rows={compared} /> : null}
        {compared.length === 1 ? <p className="muted">Pick at least one more row to compare.</p> : null}
        {result.rows.length === 0 ? <p>No row matches these filters and this search.</p> : null}
        <div className="cards">
          {result.rows.map((row) => {
            const on = compare.includes(row.id);
            return (
              <article key={row.id} className="card" data-testid="row-card">
                <h3>{row.label}</h3>
                <p className="muted">
                  {row.status} · {row.starterKind} · {row.hostFamily}
                </p>
                <p>{row.bestWhen.join("; ")}</p>
                <label>
                  <input
                    type="checkbox"
                    checked={on}
                    disabled={full && !on}
                    aria-describedby={full && !on ? "compare-limit" : undefined}
                    onChange={() => toggleCompare(row.id)}
                  />{" "}
                  Compare
                </label>
              </article>
            );
          })}
        </div>
      </div>
    </div>
  );
}
