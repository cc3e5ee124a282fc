/**
 * The manifest of an analyze job, one module per concern over the engine's shared context: stored rows and
 * their buckets (`rows`), listings (`views`), atomic patch batches (`patch-plan`, `patches`), conflict
 * detection (`conflicts`) and conflict resolution (`resolve`).
 */
export { type RecomputeOutcome, recomputeConflicts } from "./conflicts.js";
export { type InternalPatch, planRowPatch } from "./patch-plan.js";
export {
  assertManifestUnlocked,
  findActiveMoveJob,
  type PatchOptions,
  patchRows,
  type RowEdit,
  type RowsEdited,
} from "./patches.js";
export { resolveConflicts } from "./resolve.js";
export { type RowSort, type RowSortField, rowOrder } from "./row-order.js";
export {
  assertManifestReady,
  type BucketFields,
  bucketOf,
  digestOf,
  isEligible,
  loadRows,
  planHashOfJob,
  type RowRecord,
  requireManifestJob,
  reviewOf,
  thresholdOf,
  toManifestRow,
  verdictOf,
} from "./rows.js";
export { chooseOriginal, splitUnit } from "./unit-verbs.js";
export {
  CONFLICTS_LIST,
  type ListConflictsOptions,
  type ListRowsOptions,
  listConflicts,
  listRows,
  MANIFEST_ROWS_LIST,
  pathTextFilter,
  reasonCodeFilter,
  rowFilters,
  sortedRowPage,
  toConflict,
} from "./views.js";
