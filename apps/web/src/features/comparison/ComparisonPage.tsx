import { useMutation, useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import type { ComparisonDocument } from "@vetted/comparison";
import { type DragEvent, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { EmptyState, ErrorState, Loading } from "../../ui/states.js";
import { Explorer } from "./Explorer.js";
import { fileLabel } from "./model/explore.js";
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

function ServerDocument({ search }: { search: ComparisonSearch }) {
  const doc = useQuery({
    queryKey: ["comparison-document"],
    queryFn: () => unwrap(api.GET("/api/comparison/document", {})),
  });
  if (doc.isPending) return <Loading what="the comparison document" />;
  if (doc.isError) return <ErrorState error={doc.error} title="No server document" />;
  return (
    <>
      <p className="muted" data-testid="document-label">
        Document: {fileLabel(doc.data.path)}
      </p>
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
