import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { BUCKET_LABELS, labelReason, previewKindOf } from "@vetted/fileorg/browser";
import { useCallback, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { formatBytes } from "./model/format-bytes.js";
import { contentDate, dateSourceLabel, metaLabel, unitLabel } from "./model/row-facts.js";
import { Thumb } from "./Thumb.js";
import type { ManifestRow } from "./types.js";

/**
 * One row: its preview (a thumbnail of an image or a PDF's first page; text lines, image size, PDF pages),
 * its reasons in words, inline edits.
 */
export function SidePanel({ jobId, row, revision }: { jobId: string; row: ManifestRow; revision: number }) {
  const client = useQueryClient();
  const preview = useQuery({
    queryKey: ["fileorg", "preview", jobId, row.row_id],
    queryFn: () =>
      unwrap(
        api.GET("/api/jobs/{job_id}/manifest/{row_id}/preview", {
          params: { path: { job_id: jobId, row_id: row.row_id } },
        }),
      ),
  });
  const [category, setCategory] = useState(row.category);
  const [target, setTarget] = useState(row.target_path);
  const edit = useMutation({
    mutationFn: (patch: { category?: string; target_path?: string }) =>
      unwrap(
        api.PATCH("/api/jobs/{job_id}/manifest/rows/{row_id}", {
          params: { path: { job_id: jobId, row_id: row.row_id }, header: { "if-match": String(revision) } },
          body: patch,
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] }),
  });
  const p = preview.data;
  // Without a thumbnail (not rendered, or the renderer is not installed) the text preview below says it.
  const [noThumb, setNoThumb] = useState(false);
  const onNoThumb = useCallback(() => setNoThumb(true), []);
  const name = row.source_path.slice(row.source_path.lastIndexOf("/") + 1);
  const unit = unitLabel(row.unit);
  const meta = metaLabel(row.meta);
  return (
    <aside className="side-panel card" aria-label="Row details">
      <h2>{name}</h2>
      <p>
        {formatBytes(row.size)} · {row.mime ?? "unknown type"} · confidence {Math.round(row.confidence * 100)}
        %
      </p>
      <p>
        Dated {contentDate(row.date)} (from {dateSourceLabel(row.date_source)})
        {unit !== undefined ? ` · moves with its unit: ${unit} (${row.unit?.reason ?? ""})` : ""}
      </p>
      {meta !== undefined ? <p>{meta}</p> : null}
      <p className="muted">From {row.source_path}</p>
      <p>{BUCKET_LABELS[row.review_bucket] ?? row.review_bucket}</p>
      <h3>Why</h3>
      <ul className="reasons">
        {row.reason_codes.length === 0 ? <li>No reason to look at it: the plan is sure.</li> : null}
        {row.reason_codes.map((c) => (
          <li key={c}>{labelReason(c)}</li>
        ))}
      </ul>
      <h3>Preview</h3>
      {previewKindOf(row.mime) !== undefined && !noThumb ? (
        <div className="preview-thumb">
          <Thumb
            jobId={jobId}
            rowId={row.row_id}
            mime={row.mime}
            name={name}
            px={256}
            size={256}
            onUnavailable={onNoThumb}
          />
        </div>
      ) : null}
      {preview.isPending ? <Loading what="the preview" /> : null}
      {preview.isError ? <ErrorState error={preview.error} /> : null}
      {p?.kind === "text" ? <pre className="preview-text">{p.text}</pre> : null}
      {p?.kind === "image" && p.image !== undefined ? (
        <p>
          Image {p.image.width} × {p.image.height} {p.image.type ?? ""}
        </p>
      ) : null}
      {p?.kind === "pdf" && p.pdf !== undefined ? <p>PDF, {p.pdf.pages} page(s)</p> : null}
      {p?.error !== undefined ? (
        <p>
          No preview: <code>{p.error.code}</code> {p.error.message}
        </p>
      ) : null}
      <form
        className="inline-edit"
        onSubmit={(e) => {
          e.preventDefault();
          edit.mutate({
            ...(category !== row.category ? { category } : {}),
            ...(target !== row.target_path ? { target_path: target } : {}),
          });
        }}
      >
        <label>
          Category
          <input name="category" value={category} onChange={(e) => setCategory(e.target.value)} />
        </label>
        <label>
          Target
          <input name="target_path" value={target} onChange={(e) => setTarget(e.target.value)} />
        </label>
        <button type="submit" disabled={edit.isPending}>
          Save edit
        </button>
        {edit.isError ? <ErrorState error={edit.error} title="The edit was refused" /> : null}
      </form>
    </aside>
  );
}
