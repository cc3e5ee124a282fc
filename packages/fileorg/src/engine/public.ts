/** The public names of the engines (analyze, review, apply, rollback, inbox, previews), re-exported by the package entry. */

export {
  PROTECTED_PATH_REASON,
  SPECIAL_FILE_REASON,
  SYMLINK_REASON,
} from "./analyze/special-rows.js";
export {
  assertKnownCategories,
  createCategory,
  deleteCategory,
  knownCategoryNames,
  listKnownCategories,
} from "./categories.js";
export { effectiveRootsOf, intersectRoots } from "./effective-roots.js";
export {
  createFileorgEngine,
  type FileorgEngine,
  type FileorgEngineOptions,
  type FileorgHooks,
} from "./engine.js";
export {
  createFileorg,
  type Fileorg,
  type FileorgInboxOptions,
  type FileorgOptions,
} from "./fileorg.js";
export type { AnalyzeFiles, InboxEngine, InboxEngineOptions } from "./inbox/index.js";
export {
  AUTOPILOT_ACTOR,
  type AutoApplyEngine,
  autoApplySafeRows,
  createInboxEngine,
} from "./inbox/index.js";
export { ManifestFolder, ManifestView, RowPreview } from "./insights.js";
export type { JobCounts } from "./jobs/counts.js";
export {
  type FinishedJobEntry,
  finishedJobsHead,
  readFinishedJobs,
} from "./jobs/finished-feed.js";
export type { JobsSnapshot } from "./jobs/snapshot.js";
export { JOURNAL_KEY_FILE, loadJournalKey } from "./journal-key.js";
export type {
  InternalPatch,
  ListRowsOptions,
  PatchOptions,
  RowEdit,
  RowsEdited,
} from "./manifest/index.js";
export { DUPLICATES_FOLDER } from "./manifest/resolve.js";
export { createPathGuard, defaultAllowedRoots, type PathGuard } from "./path-guard.js";
export { planHashOf, planRowDigest } from "./plan-hash.js";
export type {
  ItemFamily,
  ItemOf,
  PreferencesEngine,
  PreferencesEngineOptions,
  RuntimeValidation,
  SaveOptions,
  Stored,
  StrategyPackView,
} from "./preferences/index.js";
export { createPreferencesEngine, ITEM_SCHEMAS } from "./preferences/index.js";
export {
  cachedAt,
  DEFAULT_PREVIEW_CACHE_BYTES,
  MAX_PREVIEW_BYTES,
  makeThumbnail,
  PREVIEW_PACKAGES,
  type PreviewKind,
  previewKindOf,
  THUMBNAIL_SIZES,
  THUMBNAIL_TYPE,
  type Thumbnail,
  type ThumbnailRequest,
  type ThumbnailSize,
  thumbnailCachePath,
} from "./previews.js";
export type { HubMessage } from "./records.js";
export type { ReviewEngine, ReviewEngineOptions } from "./review/index.js";
export { createReviewEngine } from "./review/index.js";
export type { Clock, IdGenerator } from "./review-ids.js";
export { conflictId, inboxBatchId } from "./stable-ids.js";
