/** The public names of the pure domain (types, schemas, planners), re-exported by the package entry. */

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
} from "./apply-plan.js";
export {
  CategoryInput,
  CategoryList,
  CategoryView,
  categoriesOfRule,
  isBuiltInCategory,
} from "./categories.js";
export {
  type Classification,
  categoryOfExtension,
  categoryOfMime,
  classifyFile,
} from "./categorize.js";
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
} from "./conflict.js";
export {
  ConflictFile,
  ConflictPreview,
  ResolutionOutcome,
  ResolutionPreview,
  summarizeOutcome,
} from "./conflict-preview.js";
export { type AudioTags, RowMeta } from "./content-meta.js";
export {
  type ConflictRow,
  type ConflictScope,
  type DetectedConflict,
  detectConflicts,
} from "./detect-conflicts.js";
export type { InboxBatch, InboxFile } from "./inbox-batch.js";
export { createIgnoreMatcher, DEFAULT_STABILITY_MS } from "./inbox-batch.js";
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
} from "./job.js";
export type {
  LearnedIndex,
  LearnedRule,
  LearningOptions,
  Outcome,
  OutcomeField,
  Signal,
  SignalKind,
  Suggestion,
} from "./learned-signals.js";
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
} from "./learned-signals.js";
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
} from "./manifest.js";
export { ruleNeedsText } from "./meta-conditions.js";
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
} from "./originals.js";
export {
  type AnalyzeLimits,
  type AnalyzeRuleGroup,
  type AnalyzeRuleSet,
  RULE_REASON_CODES,
} from "./pack-rules.js";
export { PathInput } from "./path-input.js";
export { MAX_PATH_BYTES, MAX_SEGMENT_BYTES, pathLengthProblem } from "./path-limits.js";
export type { PreferenceFamily } from "./preference-family.js";
export { PREFERENCE_FAMILIES } from "./preference-family.js";
export type { RuntimeProblem, RuntimeSettings } from "./preferences.js";
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
} from "./preferences.js";
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
} from "./review-api.js";
export {
  BUCKET_REASON_CODES,
  type BucketInput,
  type BucketVerdict,
  computeReviewBucket,
  mergeReasonCodes,
  REVIEW_CONFIDENCE_THRESHOLD,
  REVIEW_MARKERS,
} from "./review-bucket.js";
export {
  BUCKET_LABELS,
  labelReason,
  orderForReview,
  REVIEW_REASON_LABELS,
  reviewPriorityRank,
} from "./review-priority.js";
export type { ReviewRow, ReviewRowContext, ReviewRowFacts } from "./review-row.js";
export type {
  ChangeableField,
  FieldChange,
  PlanRulesOptions,
  RenderTarget,
  ReviewRuleInput,
  RowChanges,
} from "./review-rule.js";
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
} from "./review-rule.js";
export {
  categoryIssue,
  checkViewFilter,
  type FilterIssue,
  isKnownReason,
  KNOWN_REASON_CODES,
  ReasonCode,
} from "./row-filter.js";
export type { DraftRule } from "./rule-inference.js";
export { draftRuleFromExamples } from "./rule-inference.js";
export {
  type LocationBase,
  locationProblem,
  rankByLocation,
  resolveLocation,
} from "./rule-locations.js";
export {
  RULES_FILE_VERSION,
  RulesFile,
  RulesFileActions,
  RulesFileFilters,
  RulesFileLocation,
  RulesFileRule,
  rulesFileJsonSchema,
} from "./rules-file.js";
export {
  checkRulesFile,
  formatRulesFileIssue,
  loadRulesFile,
  type RulesFileCheck,
  type RulesFileIssue,
  type RulesFileRuleSource,
} from "./rules-file-check.js";
export {
  exportRulesFile,
  type RulesFileExport,
  type RulesFileLeftOut,
} from "./rules-file-export.js";
export {
  MAX_RULES_FILE_CHARS,
  RulesFileExample,
  RulesFileOutcome,
  RulesFileRequest,
  RulesFileRuleOutcome,
} from "./rules-file-outcome.js";
export type { StrategyPack } from "./strategy-packs.js";
export { DEFAULT_STRATEGY_PACK_ID, findStrategyPack, STRATEGY_PACKS } from "./strategy-packs.js";
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
} from "./template.js";
export type { TemplateIssue } from "./template-check.js";
export { checkNamingTemplate } from "./template-check.js";
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
} from "./transitions.js";
export {
  decodeTrashPath,
  encodeTrashPath,
  formatDeletionDate,
  formatTrashInfo,
  parseTrashInfo,
  TRASHINFO_EXTENSION,
  trashNameCandidate,
} from "./trash-info.js";
export {
  type FolderListing,
  type ListingEntry,
  type Recognition,
  RowUnit,
  recogniseUnit,
  UNIT_KINDS,
  type UnitKind,
} from "./units.js";
