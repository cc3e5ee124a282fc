import { useMutation, useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { type ComparisonDocument, facets, query } from "@vetted/comparison";
import { type DragEvent, useMemo, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";
import { CompareView } from "./CompareView.js";
import type { ComparisonSearch } from "./routes.js";

type Check = components["schemas"]["ComparisonCheck"];
const PASTE_KEY = "vetted.comparison.pasted";

function Issues({ check }: { check: Check }) {
  const all = [...check.issues, ...check.lint_issues];
  if (all.length === 0) return null;
  return (
    <section aria-labelledby="issues-title">
      <h2 id="issues-title">
        {check.errors} errors, {check.warnings} warnings
      </h2>
      <ul data-testid="issues">
        {all.map((issue) => (
          <li key={`${issue.pointer}|${issue.code}|${issue.line}|${issue.message}`}>
            {issue.line === undefined ? "" : `line ${issue.line}, column ${issue.column ?? 1}: `}
            <code>{issue.code}</code> {issue.message} <span className="muted">{issue.pointer}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Explorer({ doc, search }: { doc: ComparisonDocument; search: ComparisonSearch }) {
  const navigate = useNavigate({ from: "/comparison" });
  const picked = search.g ?? [];
  const compare = search.compare ?? [];
  const result = useMemo(() => {
    try {
      return {
        rows: query(doc, { groups: picked }),
        facets: facets(doc, { groups: picked }),
        error: undefined,
      };
    } catch (error) {
      return { rows: doc.comparisons, facets: facets(doc), error };
    }
  }, [doc, picked]);
  const set = (next: ComparisonSearch) => void navigate({ search: (prev) => ({ ...prev, ...next }) });
  const toggle = (ref: string) =>
    set({ g: picked.includes(ref) ? picked.filter((p) => p !== ref) : [...picked, ref] });
  const toggleCompare = (id: string) =>
    set({ compare: compare.includes(id) ? compare.filter((c) => c !== id) : [...compare, id].slice(-4) });
  const compared = doc.comparisons.filter((r) => compare.includes(r.id));
  return (
    <div className="grid">
      <aside aria-label="Filters">
        {result.facets.map((facet) => (
          <fieldset key={facet.id}>
            <legend>{facet.label}</legend>
            {facet.values.map((v) => {
              const ref = `${facet.id}:${v.id}`;
              return (
                <label key={v.id} style={{ display: "block" }}>
                  <input type="checkbox" checked={picked.includes(ref)} onChange={() => toggle(ref)} />{" "}
                  {v.label}{" "}
                  <span className="muted" data-testid={`count-${ref}`}>
                    ({v.count})
                  </span>
                </label>
              );
            })}
          </fieldset>
        ))}
      </aside>
      <div>
        {result.error === undefined ? null : (
          <ErrorState error={result.error} title="The filter in the URL is invalid" />
        )}
        <p data-testid="row-count">
          {result.rows.length} of {doc.comparisons.length} rows
          {compare.length > 0 ? ` · ${compare.length} picked to compare` : ""}
        </p>
        {compared.length >= 2 ? <CompareView rows={compared} /> : null}
        {compared.length === 1 ? <p className="muted">Pick at least one more row to compare.</p> : null}
        <div className="cards">
          {result.rows.map((row) => (
            <article key={row.id} className="card" data-testid="row-card">
              <h3>{row.label}</h3>
              <p className="muted">
                {row.status} · {row.starterKind} · {row.hostFamily}
              </p>
              <p>{row.bestWhen.join("; ")}</p>
              <label>
                <input
                  type="checkbox"
                  checked={compare.includes(row.id)}
                  onChange={() => toggleCompare(row.id)}
                />{" "}
                Compare
              </label>
            </article>
          ))}
        </div>
      </div>
    </div>
  );
}

function ServerDocument({ search }: { search: ComparisonSearch }) {
  const doc = useQuery({
    queryKey: ["comparison-document"],
    queryFn: () => unwrap(api.GET("/api/comparison/document", {})),
  });
  if (doc.isPending) return <Loading what="the comparison document" />;
  if (doc.isError) return <ErrorState error={doc.error} title="No server document" />;
  return (
    <>
      <p className="muted">{doc.data.path}</p>
      <Issues check={doc.data.check} />
      {doc.data.check.valid ? (
        <Explorer doc={doc.data.document as ComparisonDocument} search={search} />
      ) : null}
    </>
  );
}

function PastedDocument({ search }: { search: ComparisonSearch }) {
  const [text, setText] = useState(() => sessionStorage.getItem(PASTE_KEY) ?? "");
  const check = useMutation({
    mutationFn: (t: string) =>
      unwrap(api.POST("/api/comparison/validate", { body: { text: t, lint: true, curated_groups: [] } })),
  });
  const run = (t: string) => {
    sessionStorage.setItem(PASTE_KEY, t);
    check.mutate(t);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    const file = e.dataTransfer.files[0];
    if (file !== undefined)
      void file.text().then((t) => {
        setText(t);
        run(t);
      });
  };
  let doc: ComparisonDocument | undefined;
  if (check.data?.valid === true) doc = JSON.parse(text) as ComparisonDocument;
  return (
    <>
      <label style={{ display: "grid" }}>
        Paste or drop a comparison document (JSON)
        <textarea rows={8} value={text} onChange={(e) => setText(e.target.value)} onDrop={drop} />
      </label>
      <p>
        <button type="button" className="primary" onClick={() => run(text)} disabled={check.isPending}>
          Check and explore
        </button>
      </p>
      {check.isError ? <ErrorState error={check.error} /> : null}
      {check.data === undefined ? null : <Issues check={check.data} />}
      {doc === undefined ? null : <Explorer doc={doc} search={search} />}
    </>
  );
}

/** `/comparison`: the server's document or a pasted one; facets with live counts; compare 2–4 rows. */
export function ComparisonPage() {
  const search = useSearch({ from: "/comparison" });
  const navigate = useNavigate({ from: "/comparison" });
  const source = search.source ?? "server";
  return (
    <section>
      <h1>Comparison</h1>
      <fieldset className="toolbar" aria-label="Document source">
        <button
          type="button"
          aria-pressed={source === "server"}
          onClick={() => void navigate({ search: {} })}
        >
          Server document
        </button>
        <button
          type="button"
          aria-pressed={source === "pasted"}
          onClick={() => void navigate({ search: { source: "pasted" } })}
        >
          Paste a document
        </button>
      </fieldset>
      {source === "server" ? <ServerDocument search={search} /> : <PastedDocument search={search} />}
      <noscript>
        <EmptyState title="JavaScript is required" />
      </noscript>
    </section>
  );
}
