import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, unwrap } from "../../api/client.js";
import { ErrorState, Loading } from "../../ui/states.js";
import { BulkEdit, type TriageBody, triageWords } from "./BulkEdit.js";
import { CONFLICTS_ID, ConflictsPanel, openConflictsOptions } from "./ConflictsPanel.js";
import { FolderPanel } from "./FolderTree.js";
import { cursorIndex, isTableKey, reviewKey, selectRange } from "./model/review-keys.js";
import type { ReviewSearch } from "./model/review-search.js";
import { LearnedSuggestions, SavedViews } from "./ReviewExtras.js";
import { Filters } from "./ReviewFilters.js";
import { ReviewSummary } from "./ReviewSummary.js";
import { RowTable, rowOnScreen } from "./RowTable.js";
import { RuleDraft } from "./RuleDraft.js";
import { reviewRowsOptions } from "./review-rows.js";
import { SidePanel } from "./SidePanel.js";

/** The summary, the job (its folders) and the grouped view: each its own query, none waits for the rows. */
function useReviewFacts(jobId: string) {
  const view = useQuery({
    queryKey: ["fileorg", "manifest", jobId, "view"],
    queryFn: () =>
      unwrap(api.GET("/api/jobs/{job_id}/manifest/view", { params: { path: { job_id: jobId } } })),
  });
  // The review queue's summary covers the whole manifest whatever the page size: one row is enough.
  const summary = useQuery({
    queryKey: ["fileorg", "manifest", jobId, "summary"],
    queryFn: async () =>
      (
        await unwrap(
          api.GET("/api/jobs/{job_id}/review-queue", {
            params: { path: { job_id: jobId }, query: { limit: 1 } as never },
          }),
        )
      ).summary,
  });
  const job = useQuery({
    queryKey: ["fileorg", "job", jobId],
    queryFn: () => unwrap(api.GET("/api/jobs/{job_id}", { params: { path: { job_id: jobId } } })),
  });
  const conflicts = useQuery(openConflictsOptions(jobId));
  const params = (job.data?.params ?? {}) as Record<string, unknown>;
  const sourceDir = typeof params.source_dir === "string" ? params.source_dir : undefined;
  return { view, summary, conflicts, sourceDir };
}

/**
 * The review workbench of one analyze job: the summary first, then the rows (folder tree folded beside
 * them), the side panel of the row under the cursor, triage by keys or buttons, conflicts.
 */
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
  // the route's loader), then the summary and the folder tree: none waits for another.
  const pages = useInfiniteQuery(reviewRowsOptions(jobId, search));
  const { view, summary, conflicts, sourceDir } = useReviewFacts(jobId);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.items) ?? [], [pages.data]);
  const revision = pages.data?.pages[0]?.revision ?? 0;
  const rowIds = useMemo(() => rows.map((r) => r.row_id), [rows]);
  // The cursor is a row id (it stays on its file when the list changes) and the index it was last at.
  const [cursorAt, setCursorAt] = useState<{ id: string | undefined; hint: number }>({
    id: undefined,
    hint: -1,
  });
  const cursor = cursorIndex(rowIds, cursorAt.id, cursorAt.hint);
  const setCursor = useCallback((i: number) => setCursorAt({ id: rowIds[i], hint: i }), [rowIds]);
  const [anchor, setAnchor] = useState(-1);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // "Select all matching": the bulk edits act on the filters' rows, loaded or not; a new filter clears it.
  const [allMatching, setAllMatching] = useState(false);
  const filterKey = JSON.stringify([search.bucket, search.reason, search.category, search.q, search.view]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: cleared whenever the filters change
  useEffect(() => setAllMatching(false), [filterKey]);
  const [reveal, setReveal] = useState(0);
  const [said, setSaid] = useState("");
  const box = useRef<HTMLDivElement>(null);
  const triage = useMutation({
    mutationFn: (body: TriageBody) =>
      unwrap(
        api.POST("/api/jobs/{job_id}/review-queue/batch-triage", {
          params: { path: { job_id: jobId }, header: { "if-match": String(revision) } },
          body,
        }),
      ),
    onSuccess: async (result, body) => {
      const names = new Map(
        rows.map((r) => [r.row_id, r.source_path.slice(r.source_path.lastIndexOf("/") + 1)]),
      );
      setSaid(triageWords(body, names, result));
      setSelected(new Set());
      setAllMatching(false);
      await client.invalidateQueries({ queryKey: ["fileorg", "manifest", jobId] });
    },
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isTableKey(e)) return;
      const visible = rowOnScreen(box.current, rowIds[Math.max(0, cursor)]);
      const out = reviewKey(e.key, { cursor, rowIds, selected, visible });
      if (out.kind === "move") {
        e.preventDefault();
        setCursor(out.cursor);
      } else if (out.kind === "reveal") {
        e.preventDefault();
        setCursor(out.cursor);
        setReveal((n) => n + 1);
        setSaid("The row under the cursor was off-screen: scrolled to it, nothing done");
      } else if (out.kind === "select") setSelected(out.selected);
      else if (out.kind === "triage") triage.mutate({ action: out.action, row_ids: out.rowIds });
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [cursor, rowIds, selected, triage, setCursor]);
  const current = rows[cursor];
  const outputDir = view.data?.output_dir ?? "";
  return (
    <section className="review">
      <header className="review-head">
        <h1>Review {jobId}</h1>
        <nav className="subnav" aria-label="Job">
          <Link to="/files">Jobs</Link> ·{" "}
          <Link to="/files/jobs/$jobId/apply" params={{ jobId }}>
            Apply and report
          </Link>
          {sourceDir !== undefined ? (
            <span className="muted">
              {" "}
              · {sourceDir} → {outputDir}
            </span>
          ) : null}
        </nav>
      </header>
      <ReviewSummary
        jobId={jobId}
        counts={summary.data}
        error={summary.error}
        openConflicts={conflicts.data?.items.length}
        search={search}
        setSearch={setSearch}
        onResolveConflicts={() => {
          // After the navigation (which scrolls to the top): the panel in view, focused.
          void setSearch({ bucket: "conflict", reason: undefined }).then(() => {
            const panel = document.getElementById(CONFLICTS_ID);
            panel?.focus({ preventScroll: true });
            panel?.scrollIntoView({ block: "start" });
          });
        }}
        onReview={() => {
          void setSearch({ bucket: "needs_review", reason: undefined }).then(() =>
            box.current?.scrollIntoView({ block: "nearest" }),
          );
        }}
      />
      <Filters
        search={search}
        setSearch={setSearch}
        categories={Object.keys(view.data?.by_category ?? {})}
        counts={summary.data}
      />
      <SavedViews search={search} setSearch={setSearch} />
      <BulkEdit
        search={search}
        selected={selected}
        allMatching={allMatching}
        setAllMatching={(all) => {
          setAllMatching(all);
          if (all) setSelected(new Set());
        }}
        loaded={rows.length}
        complete={pages.data !== undefined && !pages.hasNextPage}
        summary={summary.data}
        categories={Object.keys(view.data?.by_category ?? {})}
        pending={triage.isPending}
        said={said}
        onTriage={(body) => triage.mutate(body)}
      />
      {triage.isError ? <ErrorState error={triage.error} title="The triage was refused" /> : null}
      <div className="workbench">
        <FolderPanel
          view={view.data}
          status={view.isError ? <ErrorState error={view.error} /> : <Loading what="the folder tree" />}
          onPick={(text) => setSearch({ q: text })}
        />
        <div className="table-area">
          {pages.isError ? <ErrorState error={pages.error} /> : null}
          {pages.isPending ? <Loading what="rows" /> : null}
          {pages.data !== undefined && rows.length === 0 ? (
            <p className="state state-empty">No rows match these filters.</p>
          ) : null}
          <RowTable
            box={box}
            rows={rows}
            jobId={jobId}
            outputDir={outputDir}
            sourceDir={sourceDir}
            cursor={cursor}
            reveal={reveal}
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
