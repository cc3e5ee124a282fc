import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useMemo, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { ConflictsPanel } from "./ConflictsPanel.js";
import { FolderTree } from "./FolderTree.js";
import { isTableKey, reviewKey, selectRange } from "./model/review-keys.js";
import { BUCKETS, type ReviewSearch, SORT_FIELDS } from "./model/review-search.js";
import { LearnedSuggestions, SavedViews } from "./ReviewExtras.js";
import { RowTable } from "./RowTable.js";
import { RuleDraft } from "./RuleDraft.js";
import { reviewRowsOptions } from "./review-rows.js";
import { SidePanel } from "./SidePanel.js";

/** The review workbench of one analyze job: folder tree, virtual table, side panel, triage, conflicts. */
export function ReviewPage({ jobId, search }: { jobId: string; search: ReviewSearch }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const setSearch = useCallback(
    (patch: Partial<ReviewSearch>) =>
      navigate({
        to: "/files/jobs/$jobId",
        params: { jobId },
        search: { ...search, ...patch },
        replace: false,
      }),
    [navigate, jobId, search],
  );
  // The rows first (the page's one essential call; its first page may already be on its way, asked for by
  // the route's loader), then the folder tree beside them: neither waits for the other.
  const pages = useInfiniteQuery(reviewRowsOptions(jobId, search));
  const view = useQuery({
    queryKey: ["fileorg", "manifest", jobId, "view"],
    queryFn: () =>
      unwrap(api.GET("/api/jobs/{job_id}/manifest/view", { params: { path: { job_id: jobId } } })),
  });
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.items) ?? [], [pages.data]);
  const revision = pages.data?.pages[0]?.revision ?? 0;
  const [cursor, setCursor] = useState(-1);
  const [anchor, setAnchor] = useState(-1);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const triage = useMutation({
    mutationFn: (body: { action: "approve" | "skip" | "set_category"; row_ids: string[]; value?: string }) =>
      unwrap(
        api.POST("/api/jobs/{job_id}/review-queue/batch-triage", {
          params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
          body,
        }),
      ),
    onSuccess: async () => {
      setSelected(new Set());
      await client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] });
    },
  });
  const rowIds = useMemo(() => rows.map((r) => r.row_id), [rows]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isTableKey(e)) return;
      const out = reviewKey(e.key, { cursor, rowIds, selected });
      if (out.kind === "move") {
        e.preventDefault();
        setCursor(out.cursor);
      } else if (out.kind === "select") setSelected(out.selected);
      else if (out.kind === "triage") triage.mutate({ action: out.action, row_ids: out.rowIds });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [cursor, rowIds, selected, triage]);
  const current = rows[cursor];
  const outputDir = view.data?.output_dir ?? "";
  return (
    <section className="review">
      <h1>Review {jobId}</h1>
      <nav className="subnav" aria-label="Job">
        <Link to="/files">Jobs</Link> ·{" "}
        <Link to="/files/jobs/$jobId/apply" params={{ jobId }}>
          Apply and report
        </Link>
      </nav>
      <Filters search={search} setSearch={setSearch} categories={Object.keys(view.data?.by_category ?? {})} />
      <SavedViews search={search} setSearch={setSearch} />
      <div className="selection-bar" aria-live="polite">
        {selected.size} selected · {rows.length} rows loaded{pages.hasNextPage ? " (more on scroll)" : ""} ·
        keys: j/k move, x select, a approve, s skip
        <button
          type="button"
          disabled={selected.size === 0}
          onClick={() => triage.mutate({ action: "approve", row_ids: [...selected] })}
        >
          Approve selected
        </button>
        <button
          type="button"
          disabled={selected.size === 0}
          onClick={() => triage.mutate({ action: "skip", row_ids: [...selected] })}
        >
          Skip selected
        </button>
      </div>
      {triage.isError ? <ErrorState error={triage.error} title="The triage was refused" /> : null}
      <div className="workbench">
        {view.data !== undefined ? (
          <FolderTree view={view.data} onPick={(text) => setSearch({ q: text })} />
        ) : view.isError ? (
          <ErrorState error={view.error} />
        ) : (
          <Loading what="the folder tree" />
        )}
        <div className="table-area">
          {pages.isError ? <ErrorState error={pages.error} /> : null}
          {pages.isPending ? <Loading what="rows" /> : null}
          {pages.data !== undefined && rows.length === 0 ? (
            <p className="state state-empty">No rows match these filters.</p>
          ) : null}
          <RowTable
            rows={rows}
            outputDir={outputDir}
            cursor={cursor}
            selected={selected}
            hasMore={pages.hasNextPage}
            onLoadMore={() => {
              if (!pages.isFetchingNextPage) void pages.fetchNextPage();
            }}
            onOpen={(i) => setCursor(i)}
            onToggle={(i, range) => {
              const id = rowIds[i];
              if (id === undefined) return;
              if (range && anchor >= 0) setSelected(selectRange(rowIds, anchor, i, selected));
              else {
                const next = new Set(selected);
                if (next.has(id)) next.delete(id);
                else next.add(id);
                setSelected(next);
              }
              setAnchor(i);
            }}
          />
        </div>
        {current !== undefined ? (
          <SidePanel key={current.row_id} jobId={jobId} row={current} revision={revision} />
        ) : null}
      </div>
      <LearnedSuggestions
        jobId={jobId}
        rowIds={selected.size > 0 ? [...selected] : current !== undefined ? [current.row_id] : []}
        revision={revision}
      />
      <RuleDraft jobId={jobId} rowIds={[...selected]} revision={revision} />
      <ConflictsPanel jobId={jobId} revision={revision} />
    </section>
  );
}

function Filters(props: {
  search: ReviewSearch;
  setSearch: (patch: Partial<ReviewSearch>) => void;
  categories: string[];
}) {
  const { search, setSearch } = props;
  const [text, setText] = useState(search.q ?? "");
  return (
    <form
      className="filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        setSearch({ q: text.trim() === "" ? undefined : text.trim() });
      }}
    >
      <label>
        Bucket
        <select
          name="bucket"
          value={search.bucket ?? ""}
          onChange={(e) =>
            setSearch({
              bucket: e.target.value === "" ? undefined : (e.target.value as ReviewSearch["bucket"]),
            })
          }
        >
          <option value="">All</option>
          {BUCKETS.map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      </label>
      <label>
        Category
        <select
          name="category"
          value={search.category ?? ""}
          onChange={(e) => setSearch({ category: e.target.value || undefined })}
        >
          <option value="">All</option>
          {props.categories.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Reason
        <input
          name="reason"
          defaultValue={search.reason ?? ""}
          placeholder="LOW_CONFIDENCE"
          onBlur={(e) => setSearch({ reason: e.target.value.trim() || undefined })}
        />
      </label>
      <label>
        Sort
        <select
          name="sort"
          value={search.sort ?? ""}
          onChange={(e) => setSearch({ sort: e.target.value || undefined })}
        >
          <option value="">Analyze order</option>
          {SORT_FIELDS.flatMap((f) => [
            <option key={f} value={f}>
              {f} ↑
            </option>,
            <option key={`-${f}`} value={`-${f}`}>
              {f} ↓
            </option>,
          ])}
        </select>
      </label>
      <label>
        Text
        <input name="q" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}
