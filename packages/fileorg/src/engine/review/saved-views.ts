import type { ManifestPage, ReviewBucket, RowStatus } from "../../domain/manifest.js";
import { ViewItem } from "../../domain/preferences.js";
import type { ReviewQueuePage, ReviewQueueQuery } from "../../domain/review-api.js";
import { checkViewFilter } from "../../domain/row-filter.js";
import { PreferenceInvalidError, PreferenceNotFoundError, ReviewError } from "../../review-errors.js";
import {
  type ListRowsOptions,
  type RowSort,
  requireManifestJob,
  rowFilters,
  sortedRowPage,
} from "../manifest/index.js";
import type { Stored } from "../preferences/index.js";
import { toIssues } from "../preferences/resources.js";
import { queuePage, summaryOf, toQueueRows } from "./queue.js";
import type { ReviewResources } from "./resources.js";

/** The list family review-queue pages through a view are bound to. */
const VIEW_QUEUE_LIST = "fileorg.review-queue";
const QUEUE_DEFAULT_LIMIT = 100;
/** What the queue shows when neither the view nor the query names a bucket or a status. */
const ATTENTION_BUCKETS: readonly ReviewBucket[] = ["blocked", "conflict", "needs_review"];
const ATTENTION_STATUSES: readonly RowStatus[] = ["pending", "failed"];

/** A manifest listing's query, with an optional saved view. */
export type ManifestViewQuery = Omit<ListRowsOptions, "sort" | "buckets" | "statuses" | "rowIds"> & {
  view?: string | undefined;
  /** An explicit sort; it wins over the view's. */
  sort?: RowSort[] | undefined;
};

/**
 * A saved view by id, checked again as it is used (a category removed since it was saved): throws
 * VIEW_NOT_FOUND, or PREFERENCE_INVALID naming what no longer holds.
 */
export async function loadSavedView(res: ReviewResources, viewId: string): Promise<Stored<"views">> {
  let view: Stored<"views">;
  try {
    view = await res.preferences.get("views", viewId);
  } catch (err) {
    if (!(err instanceof PreferenceNotFoundError)) throw err;
    throw new ReviewError(
      "VIEW_NOT_FOUND",
      `No saved view ${JSON.stringify(viewId)}; list the saved views with GET /api/preferences/views.`,
      { view_id: viewId },
    );
  }
  const parsed = ViewItem.safeParse(view);
  const issues = parsed.success
    ? checkViewFilter(parsed.data, await res.preferences.knownCategories())
    : toIssues(parsed.error);
  if (issues.length > 0) throw new PreferenceInvalidError("views", issues);
  return view;
}

/** Keeps the defined fields of `explicit` over those of `base` (explicit query fields win over a view's). */
function overlay<T extends object>(base: T, explicit: T): T {
  const given = Object.entries(explicit).filter(([, value]) => value !== undefined);
  return { ...base, ...Object.fromEntries(given) };
}

/** A view's filter as listing options (`q` is the manifest's `text`). */
function viewFilter(view: ViewItem): ListRowsOptions {
  const f = view.filter;
  return {
    bucket: f.bucket,
    status: f.status,
    category: f.category as ListRowsOptions["category"],
    reason: f.reason,
    text: f.q,
  };
}

/**
 * A page of a manifest, through a saved view when `view` names one: the view's filter, with each field the
 * query gives explicitly winning over the view's, and the view's sort (then analyze order).
 */
export async function manifestPage(
  res: ReviewResources,
  jobId: string,
  query: ManifestViewQuery,
): Promise<ManifestPage> {
  const { view: viewId, ...explicit } = query;
  if (viewId === undefined) return res.fileorg.listRows(jobId, explicit);
  await requireManifestJob(res.db, jobId);
  const view = await loadSavedView(res, viewId);
  const options: ListRowsOptions = {
    ...overlay(viewFilter(view), explicit),
    sort: explicit.sort ?? view.sort,
  };
  return res.fileorg.listRows(jobId, options);
}

/**
 * A page of the review queue through a saved view: the view's filter (explicit `bucket`/`reason` win), in
 * the view's sort — review priority when it has none (then the queue's own pages over its index, with the
 * view's other fields as extra conditions). Without a bucket or status from either, the queue's scope
 * applies (blocked, conflict, needs_review rows that are pending or failed).
 */
export async function viewQueuePage(
  res: ReviewResources,
  jobId: string,
  query: ReviewQueueQuery & { view: string },
): Promise<ReviewQueuePage> {
  const job = await requireManifestJob(res.db, jobId);
  const view = await loadSavedView(res, query.view);
  const filter = overlay(viewFilter(view), { bucket: query.bucket, reason: query.reason });
  if (view.sort.length === 0) {
    // Priority order: the queue's own per-bucket pages over its index, narrowed by the view's other fields.
    const { status, category, text } = filter;
    const scope = {
      where: rowFilters(jobId, { status, category, text }),
      statuses: status === undefined ? undefined : [status],
    };
    const page = { cursor: query.cursor, limit: query.limit };
    return queuePage(res, jobId, { bucket: filter.bucket, reason: filter.reason, ...page }, scope);
  }
  const sort: RowSort[] = view.sort;
  const options = {
    ...filter,
    ...(filter.bucket === undefined ? { buckets: ATTENTION_BUCKETS } : {}),
    ...(filter.bucket === undefined && filter.status === undefined ? { statuses: ATTENTION_STATUSES } : {}),
    cursor: query.cursor,
    limit: query.limit,
    sort,
  };
  const page = await sortedRowPage(res.db, jobId, options, VIEW_QUEUE_LIST, QUEUE_DEFAULT_LIMIT);
  return {
    items: await toQueueRows(res, job, page.items),
    next_cursor: page.next_cursor,
    revision: job.revision ?? 0,
    summary: await summaryOf(res, jobId, job),
  };
}
