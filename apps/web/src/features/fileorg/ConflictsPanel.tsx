import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client.js";
import { ErrorState } from "../../ui/states.js";
import { conflictTitle, outcomeLine } from "./model/conflict-words.js";
import { formatBytes } from "./model/format-bytes.js";
import { Thumb } from "./Thumb.js";
import type { Conflict, ConflictPreview } from "./types.js";

type Strategy = "rename" | "skip" | "keep_both" | "move_to_duplicates" | "move_to_trash";
const WORDS: Record<Strategy, string> = {
  rename: "Rename (add (2), (3)…)",
  skip: "Skip these files",
  keep_both: "Keep both",
  move_to_duplicates: "Move copies to _duplicates",
  move_to_trash: "Move copies to the trash",
};

/** What each conflict kind may be resolved with (`manual` is an inline target edit in the side panel). */
function strategiesOf(kind: Conflict["kind"]): Strategy[] {
  return kind === "duplicate_content"
    ? ["keep_both", "skip", "move_to_duplicates", "move_to_trash"]
    : ["rename", "skip", "keep_both"];
}

function isStrategy(s: string): s is Strategy {
  return s in WORDS;
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

type Resolve = (r: { conflict_id: string; strategy: Strategy }) => void;

/** The open conflicts of a manifest, each with its files and a preview of each resolution. */
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
      <ul className="conflict-list">
        {items.map((c) => (
          <ConflictItem
            key={c.conflict_id}
            jobId={jobId}
            conflict={c}
            busy={resolve.isPending}
            onResolve={resolve.mutate}
          />
        ))}
      </ul>
    </section>
  );
}

/** One conflict: what collides, its files (thumbnail, relative name, size, date), each resolution's outcome. */
function ConflictItem(props: { jobId: string; conflict: Conflict; busy: boolean; onResolve: Resolve }) {
  const { jobId, conflict: c } = props;
  const preview = useQuery({
    queryKey: ["fileorg", "manifest", jobId, "conflict-preview", c.conflict_id],
    queryFn: () =>
      unwrap(
        api.GET("/api/jobs/{job_id}/manifest/conflicts/{conflict_id}/preview", {
          params: { path: { job_id: jobId, conflict_id: c.conflict_id } },
        }),
      ),
  });
  const p = preview.data;
  const title =
    p === undefined
      ? `${c.kind.replaceAll("_", " ")} (${c.row_ids.length} files)`
      : conflictTitle(
          c.kind,
          p.files.map((f) => f.target),
        );
  return (
    <li data-conflict={c.conflict_id} className="conflict">
      <h3>{title}</h3>
      {preview.isError ? <ErrorState error={preview.error} title="The conflict's preview failed" /> : null}
      {p === undefined ? (
        <div className="resolutions">
          {strategiesOf(c.kind).map((s) => (
            <button
              key={s}
              type="button"
              disabled={props.busy}
              onClick={() => props.onResolve({ conflict_id: c.conflict_id, strategy: s })}
            >
              {WORDS[s]}
            </button>
          ))}
        </div>
      ) : (
        <ConflictDetail jobId={jobId} preview={p} busy={props.busy} onResolve={props.onResolve} />
      )}
    </li>
  );
}

function ConflictDetail(props: {
  jobId: string;
  preview: ConflictPreview;
  busy: boolean;
  onResolve: Resolve;
}) {
  const { preview: p } = props;
  const sourceOf = new Map(p.files.map((f) => [f.row_id, f.source]));
  const offered = p.resolutions.filter((r) => r.applicable);
  return (
    <>
      <ul className="conflict-files" aria-label="Files in this conflict">
        {p.files.map((f) => (
          <li key={f.row_id} data-file={f.row_id}>
            <Thumb jobId={props.jobId} rowId={f.row_id} mime={f.mime} name={f.name} px={40} size={64} />
            <span>
              <span className="conflict-file-name">{f.source}</span>
              <span className="sub">
                {formatBytes(f.size)} · {(f.date ?? f.mtime).slice(0, 10)}
                {f.original ? " · the original" : ""}
              </span>
            </span>
          </li>
        ))}
      </ul>
      <ul className="resolutions" aria-label="Resolutions">
        {offered.map((r) => {
          const strategy = r.strategy;
          if (!isStrategy(strategy)) return null;
          return (
            <li key={strategy} data-strategy={strategy}>
              <button
                type="button"
                disabled={props.busy}
                title={r.summary}
                onClick={() => props.onResolve({ conflict_id: p.conflict.conflict_id, strategy })}
              >
                {WORDS[strategy]}
              </button>
              <ul className="outcome" aria-label={`After ${WORDS[strategy]}`}>
                {r.files.map((f) => (
                  <li key={f.row_id} className={f.changed ? "changed" : undefined}>
                    {outcomeLine(sourceOf.get(f.row_id) ?? f.row_id, f)}
                  </li>
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </>
  );
}
