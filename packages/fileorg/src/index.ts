/**
 * @module @vetted/fileorg
 *
 * Review-first file organization: analyze a folder into a manifest of proposed moves, review and edit it
 * (a prioritized queue, batch triage, rules, learned suggestions, an inbox), apply it with a write-ahead
 * journal, and roll it back exactly. No file is ever lost or overwritten.
 */

export { runTransaction } from "@vetted/store";
export {
  APPLY_STAY_REASONS,
  ApplyBucketTally,
  type ApplyFate,
  ApplyPlan,
  ApplyResult,
  type ApplyRowFacts,
  ApplySelection,
  type ApplyStayReason,
  ApplyStays,
  ApplyWarning,
  decideApplyFate,
  FolderLinkTargetMoved,
  SymlinkTargetMoved,
  tallyApplyPlan,
} from "./domain/apply-plan.js";
export {
  CategoryInput,
  CategoryList,
  CategoryView,
  categoriesOfRule,
  isBuiltInCategory,
} from "./domain/categories.js";
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
  ConflictFile,
  ConflictPreview,
  ResolutionOutcome,
  ResolutionPreview,
  summarizeOutcome,
} from "./domain/conflict-preview.js";
export { type AudioTags, RowMeta } from "./domain/content-meta.js";
export {
  type ConflictRow,
  type ConflictScope,
  type DetectedConflict,
  detectConflicts,
} from "./domain/detect-conflicts.js";
export type { InboxBatch, InboxFile } from "./domain/inbox-batch.js";
export { createIgnoreMatcher, DEFAULT_STABILITY_MS } from "./domain/inbox-batch.js";
export {
  type Actor,
  AnalyzeRequest,
  APPLY_BUCKETS,
  type ApplyBucket,
  ApplyPlanRequest,
  ApplyRequest,
  AuditEntry,
  AuditList,
  canRetry,
  DEFAULT_NAMING_TEMPLATE,
  FINISHED_JOB_STATUSES,
  isApplyBucket,
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
export type {
  LearnedIndex,
  LearnedRule,
  LearningOptions,
  Outcome,
  OutcomeField,
  Signal,
  SignalKind,
  Suggestion,
} from "./domain/learned-signals.js";
export {
  boostConfidence,
  DEFAULT_LEARNING,
  indexLearned,
  isPastThreshold,
  OUTCOME_FIELDS,
  outcomesOfEdit,
  SIGNAL_KINDS,
  signalsOf,
  strengthOf,
  suggestFor,
  targetDirOf,
} from "./domain/learned-signals.js";
export {
  AppliedRule,
  BatchEditRequest,
  CATEGORIES,
  type Category,
  CategoryName,
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
// Review, preferences and inbox.
export {
  type CopyFacts,
  chooseOriginal,
  DEFAULT_ORIGINAL_POLICY,
  DuplicateOriginal,
  hasCopyMarker,
  ORIGINAL_POLICIES,
  ORIGINAL_REASONS,
  type OriginalPolicy,
  type OriginalReason,
} from "./domain/originals.js";
export {
  type AnalyzeLimits,
  type AnalyzeRuleGroup,
  type AnalyzeRuleSet,
  RULE_REASON_CODES,
} from "./domain/pack-rules.js";
export { PathInput } from "./domain/path-input.js";
export { MAX_PATH_BYTES, MAX_SEGMENT_BYTES, pathLengthProblem } from "./domain/path-limits.js";
export type { PreferenceFamily } from "./domain/preference-family.js";
export { PREFERENCE_FAMILIES } from "./domain/preference-family.js";
export type { RuntimeProblem, RuntimeSettings } from "./domain/preferences.js";
export {
  AiClassifierInput,
  AUTO_APPLY_MODES,
  type AutoApplyMode,
  DEFAULT_RUNTIME_SETTINGS,
  maskSecret,
  NamingTemplateItem,
  RuntimeSettingsInput,
  RuntimeSettingsView,
  VIEW_SORT_FIELDS,
  ViewItem,
  WatchSourceItem,
} from "./domain/preferences.js";
export {
  BatchTriageRequest,
  BatchTriageResult,
  DraftRuleResult,
  FromExamplesRequest,
  LearnedRuleView,
  ReviewQueuePage,
  ReviewQueueQuery,
  ReviewQueueRow,
  ReviewReason,
  ReviewSummary,
  RowSuggestion,
  RuleOutcome,
  RuleRequest,
  TriageFilter,
} from "./domain/review-api.js";
export {
  BUCKET_REASON_CODES,
  type BucketInput,
  type BucketVerdict,
  computeReviewBucket,
  mergeReasonCodes,
  REVIEW_CONFIDENCE_THRESHOLD,
  REVIEW_MARKERS,
} from "./domain/review-bucket.js";
export {
  BUCKET_LABELS,
  labelReason,
  orderForReview,
  REVIEW_REASON_LABELS,
  reviewPriorityRank,
} from "./domain/review-priority.js";
export type { ReviewRow, ReviewRowContext, ReviewRowFacts } from "./domain/review-row.js";
export type {
  ChangeableField,
  FieldChange,
  PlanRulesOptions,
  RenderTarget,
  ReviewRuleInput,
  RowChanges,
} from "./domain/review-rule.js";
export {
  CHANGEABLE_FIELDS,
  compileConditions,
  matchesRule,
  orderRules,
  planRules,
  ReviewRule,
  RuleAction,
  RuleCondition,
  RuleConditions,
} from "./domain/review-rule.js";
export {
  categoryIssue,
  checkViewFilter,
  type FilterIssue,
  isKnownReason,
  KNOWN_REASON_CODES,
  ReasonCode,
} from "./domain/row-filter.js";
export type { DraftRule } from "./domain/rule-inference.js";
export { draftRuleFromExamples } from "./domain/rule-inference.js";
export {
  type LocationBase,
  locationProblem,
  rankByLocation,
  resolveLocation,
} from "./domain/rule-locations.js";
export {
  RULES_FILE_VERSION,
  RulesFile,
  RulesFileActions,
  RulesFileFilters,
  RulesFileLocation,
  RulesFileRule,
  rulesFileJsonSchema,
} from "./domain/rules-file.js";
export {
  checkRulesFile,
  formatRulesFileIssue,
  loadRulesFile,
  type RulesFileCheck,
  type RulesFileIssue,
  type RulesFileRuleSource,
} from "./domain/rules-file-check.js";
export {
  exportRulesFile,
  type RulesFileExport,
  type RulesFileLeftOut,
} from "./domain/rules-file-export.js";
export {
  MAX_RULES_FILE_CHARS,
  RulesFileExample,
  RulesFileOutcome,
  RulesFileRequest,
  RulesFileRuleOutcome,
} from "./domain/rules-file-outcome.js";
export type { StrategyPack } from "./domain/strategy-packs.js";
export { DEFAULT_STRATEGY_PACK_ID, findStrategyPack, STRATEGY_PACKS } from "./domain/strategy-packs.js";
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
  type TemplateMeta,
  type TemplateToken,
  TOKEN_FALLBACKS,
  withSuffix,
} from "./domain/template.js";
export type { TemplateIssue } from "./domain/template-check.js";
export { checkNamingTemplate } from "./domain/template-check.js";
export {
  CONFLICT_STATUS_EVENTS,
  CONFLICT_TRANSITIONS,
  canMoveConflict,
  canMoveJob,
  canMoveRow,
  decideJobOutcome,
  type FinishedJobStatus,
  INITIAL_STATUS,
  JOB_STATUS_EVENTS,
  JOB_TRANSITIONS,
  type JobOutcome,
  type JobOutcomeInput,
  moveConflict,
  moveJob,
  moveRow,
  moveTo,
  ROW_STATUS_EVENTS,
  ROW_TRANSITIONS,
  sourcesOf,
} from "./domain/transitions.js";
export {
  decodeTrashPath,
  encodeTrashPath,
  formatDeletionDate,
  formatTrashInfo,
  parseTrashInfo,
  TRASHINFO_EXTENSION,
  trashNameCandidate,
} from "./domain/trash-info.js";
export {
  type FolderListing,
  type ListingEntry,
  type Recognition,
  RowUnit,
  recogniseUnit,
  UNIT_KINDS,
  type UnitKind,
} from "./domain/units.js";
export {
  PROTECTED_PATH_REASON,
  SPECIAL_FILE_REASON,
  SYMLINK_REASON,
} from "./engine/analyze/special-rows.js";
export {
  assertKnownCategories,
  createCategory,
  deleteCategory,
  knownCategoryNames,
  listKnownCategories,
} from "./engine/categories.js";
export { effectiveRootsOf, intersectRoots } from "./engine/effective-roots.js";
export {
  createFileorgEngine,
  type FileorgEngine,
  type FileorgEngineOptions,
  type FileorgHooks,
} from "./engine/engine.js";
export {
  createFileorg,
  type Fileorg,
  type FileorgInboxOptions,
  type FileorgOptions,
} from "./engine/fileorg.js";
export type { AnalyzeFiles, InboxEngine, InboxEngineOptions } from "./engine/inbox/index.js";
export {
  AUTOPILOT_ACTOR,
  type AutoApplyEngine,
  autoApplySafeRows,
  createInboxEngine,
} from "./engine/inbox/index.js";
export { ManifestFolder, ManifestView, RowPreview } from "./engine/insights.js";
export type { JobCounts } from "./engine/jobs/counts.js";
export {
  type FinishedJobEntry,
  finishedJobsHead,
  readFinishedJobs,
} from "./engine/jobs/finished-feed.js";
export type { JobsSnapshot } from "./engine/jobs/snapshot.js";
export { JOURNAL_KEY_FILE, loadJournalKey } from "./engine/journal-key.js";
export type {
  InternalPatch,
  ListRowsOptions,
  PatchOptions,
  RowEdit,
  RowsEdited,
} from "./engine/manifest/index.js";
export { DUPLICATES_FOLDER } from "./engine/manifest/resolve.js";
export { createPathGuard, defaultAllowedRoots, type PathGuard } from "./engine/path-guard.js";
export { planHashOf, planRowDigest } from "./engine/plan-hash.js";
export type {
  ItemFamily,
  ItemOf,
  PreferencesEngine,
  PreferencesEngineOptions,
  RuntimeValidation,
  SaveOptions,
  Stored,
  StrategyPackView,
} from "./engine/preferences/index.js";
export { createPreferencesEngine, ITEM_SCHEMAS } from "./engine/preferences/index.js";
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
} from "./engine/previews.js";
export type { HubMessage } from "./engine/records.js";
export type { ReviewEngine, ReviewEngineOptions } from "./engine/review/index.js";
export { createReviewEngine } from "./engine/review/index.js";
export type { Clock, IdGenerator } from "./engine/review-ids.js";
export { conflictId, inboxBatchId } from "./engine/stable-ids.js";
export {
  FILEORG_ERROR_CODES,
  FileorgError,
  type FileorgErrorCode,
  IllegalTransitionError,
  JobStateError,
  NotFoundError,
  PathOutsideRootError,
  RulesFileError,
} from "./errors.js";
export type { FieldIssue, ReviewErrorCode } from "./review-errors.js";
export {
  PreferenceInvalidError,
  PreferenceNotFoundError,
  REVIEW_ERROR_CODES,
  ReviewError,
} from "./review-errors.js";
export { MIGRATION_SETS, type MigrationSet, migrate } from "./store/migrate.js";
export { migrateReview, REVIEW_MIGRATIONS_TABLE } from "./store/review-migrate.js";
