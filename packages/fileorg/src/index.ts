/**
 * @module @vetted/fileorg
 *
 * Review-first file organization: analyze a folder into a manifest of proposed moves, review and edit it,
 * apply it with a write-ahead journal, and roll it back exactly. No file is ever lost or overwritten.
 */
export {
  type Classification,
  categoryOfExtension,
  categoryOfMime,
  classifyFile,
} from "./domain/categorize.js";
export {
  CONFLICT_KINDS,
  CONFLICT_STATUSES,
  Conflict,
  type ConflictKind,
  ConflictList,
  type ConflictStatus,
  RESOLUTION_STRATEGIES,
  type ResolutionStrategy,
  ResolveRequest,
} from "./domain/conflict.js";
export {
  type ConflictRow,
  type ConflictScope,
  conflictId,
  type DetectedConflict,
  detectConflicts,
} from "./domain/detect-conflicts.js";
export {
  type Actor,
  AnalyzeRequest,
  ApplyRequest,
  AuditEntry,
  AuditList,
  canRetry,
  DEFAULT_NAMING_TEMPLATE,
  FINISHED_JOB_STATUSES,
  isFinished,
  JOB_EVENT_TYPES,
  JOB_KINDS,
  JOB_STATUSES,
  Job,
  JobError,
  JobEvent,
  JobEventList,
  type JobEventType,
  type JobKind,
  JobList,
  JobReport,
  type JobStatus,
  RollbackRequest,
} from "./domain/job.js";
export {
  BatchEditRequest,
  CATEGORIES,
  type Category,
  EditResult,
  ManifestFilter,
  ManifestPage,
  ManifestRow,
  REVIEW_BUCKETS,
  type ReviewBucket,
  ROW_ACTIONS,
  ROW_STATUSES,
  type RowAction,
  RowError,
  RowPatch,
  type RowStatus,
} from "./domain/manifest.js";
export { planHashOf, planRowDigest } from "./domain/plan-hash.js";
export {
  type BucketInput,
  type BucketVerdict,
  computeReviewBucket,
  REVIEW_CONFIDENCE_THRESHOLD,
} from "./domain/review-bucket.js";
export {
  isInside,
  type ParsedTemplate,
  parseTemplate,
  pathKey,
  renderTemplate,
  resolveTargetPath,
  sanitizeSegment,
  TEMPLATE_TOKENS,
  type TemplateContext,
  type TemplateToken,
  withSuffix,
} from "./domain/template.js";
export { runTransaction } from "./engine/db.js";
export { createFileorgEngine, type FileorgEngine, type FileorgEngineOptions } from "./engine/engine.js";
export { ManifestFolder, ManifestView, RowPreview } from "./engine/insights.js";
export { JOURNAL_KEY_FILE, loadJournalKey } from "./engine/journal-key.js";
export type { InternalPatch, ListRowsOptions, PatchOptions } from "./engine/manifest.js";
export { createPathGuard, defaultAllowedRoots, type PathGuard } from "./engine/path-guard.js";
export type { HubMessage } from "./engine/records.js";
export {
  FILEORG_ERROR_CODES,
  FileorgError,
  type FileorgErrorCode,
  JobStateError,
  NotFoundError,
  PathOutsideRootError,
} from "./errors.js";
export { MIGRATION_SETS, type MigrationSet, migrate } from "./store/migrate.js";
