import { Link } from "@tanstack/react-router";
import { ErrorState, Loading } from "../../ui/states.js";
import type { Bucket, ReviewSearch } from "./model/review-search.js";
import {
  attentionPhrase,
  bucketPhrase,
  nextAction,
  type ReviewCounts,
  SUMMARY_BUCKETS,
  topReasons,
} from "./model/review-summary.js";

/**
 * The top of the review page: counts per bucket (each a filter), what still needs a person, the top reasons
 * (each a filter) and the one suggested next action.
 */
export function ReviewSummary(props: {
  jobId: string;
  counts: ReviewCounts | undefined;
  error: unknown;
  openConflicts: number | undefined;
  search: ReviewSearch;
  setSearch: (patch: Partial<ReviewSearch>) => void;
  onResolveConflicts: () => void;
  onReview: () => void;
}) {
  const { counts, search, setSearch } = props;
  if (counts === undefined) {
    return props.error === null ? (
      <Loading what="the summary" />
    ) : (
      <ErrorState error={props.error} title="No summary" />
    );
  }
  const next = nextAction(counts, props.openConflicts);
  const reasons = topReasons(counts);
  const pick = (bucket: Bucket) =>
    setSearch({ bucket: search.bucket === bucket ? undefined : bucket, reason: undefined });
  return (
    <section className="review-summary card" aria-label="Summary" data-total={counts.total}>
      <p className="summary-counts">
        <strong>{counts.total} files:</strong>{" "}
        {SUMMARY_BUCKETS.map((b, i) => (
          <span key={b}>
            {i > 0 ? ", " : null}
            <button
              type="button"
              className="link"
              data-bucket-count={b}
              aria-pressed={search.bucket === b}
              onClick={() => pick(b)}
            >
              {bucketPhrase(b, counts.buckets[b])}
            </button>
          </span>
        ))}
      </p>
      <p className="summary-attention">{attentionPhrase(counts)}</p>
      {reasons.length > 0 ? (
        <p className="summary-reasons">
          Top reasons (files needing a person):{" "}
          {reasons.map((r, i) => (
            <span key={r.code}>
              {i > 0 ? " · " : null}
              <Link
                to="/files/jobs/$jobId"
                params={{ jobId: props.jobId }}
                search={{ ...search, reason: r.code, bucket: undefined }}
                title={`${r.count} of the files needing a person; the filter lists every file with this reason`}
                data-reason={r.code}
              >
                {r.label} ({r.count})
              </Link>
            </span>
          ))}
        </p>
      ) : null}
      <p className="summary-next">
        Next:{" "}
        {next.kind === "apply" ? (
          <Link
            to="/files/jobs/$jobId/apply"
            params={{ jobId: props.jobId }}
            className="next-action"
            data-next={next.kind}
          >
            {next.label}
          </Link>
        ) : (
          <button
            type="button"
            className="primary next-action"
            data-next={next.kind}
            onClick={next.kind === "resolve_conflicts" ? props.onResolveConflicts : props.onReview}
          >
            {next.label}
          </button>
        )}
      </p>
    </section>
  );
}
