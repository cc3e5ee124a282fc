/**
 * Review-first file organization: analyze a folder into a manifest of proposed moves, review it (a
 * prioritized queue, batch triage, rules, learned suggestions), apply with a write-ahead journal, roll back.
 *
 * @module @vetted/fileorg
 */

// Review, preferences and inbox.
export type { InboxBatch, InboxFile } from "./domain/inbox-batch.js";
export { createIgnoreMatcher, DEFAULT_STABILITY_MS, inboxBatchId } from "./domain/inbox-batch.js";
export type {
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
  OUTCOME_FIELDS,
  outcomesOfEdit,
  SIGNAL_KINDS,
  signalsOf,
  strengthOf,
  suggestFor,
  targetDirOf,
} from "./domain/learned-signals.js";
export type { PreferenceFamily } from "./domain/preference-family.js";
export { PREFERENCE_FAMILIES } from "./domain/preference-family.js";
export type { RuntimeProblem, RuntimeSettings } from "./domain/preferences.js";
export {
  AiClassifierInput,
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
  BUCKET_LABELS,
  labelReason,
  orderForReview,
  REVIEW_REASON_LABELS,
  reviewPriorityRank,
} from "./domain/review-priority.js";
export type {
  ReviewRow,
  ReviewRowContext,
  ReviewRowFacts,
  RowAction,
  RowStatus,
} from "./domain/review-row.js";
export { REVIEW_BUCKETS, ReviewBucket, ROW_ACTIONS, ROW_STATUSES } from "./domain/review-row.js";
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
export type { DraftRule } from "./domain/rule-inference.js";
export { draftRuleFromExamples } from "./domain/rule-inference.js";
export type { StrategyPack } from "./domain/strategy-packs.js";
export { DEFAULT_STRATEGY_PACK_ID, findStrategyPack, STRATEGY_PACKS } from "./domain/strategy-packs.js";
export type { TemplateIssue, TemplateToken, TemplateValues } from "./domain/template-check.js";
export {
  checkNamingTemplate,
  checkRelativePath,
  renderTemplate,
  TEMPLATE_TOKENS,
} from "./domain/template-check.js";
export type { Clock, IdGenerator } from "./engine/review-ids.js";
export type { AnalyzeFiles, InboxEngine, InboxEngineOptions } from "./engine/inbox-engine.js";
export { createInboxEngine } from "./engine/inbox-engine.js";
export type {
  ItemFamily,
  ItemOf,
  PreferencesEngine,
  PreferencesEngineOptions,
  RuntimeValidation,
  SaveOptions,
  Stored,
  StrategyPackView,
} from "./engine/preferences-engine.js";
export { createPreferencesEngine, ITEM_SCHEMAS } from "./engine/preferences-engine.js";
export type { FieldIssue, ReviewErrorCode } from "./review-errors.js";
export {
  PreferenceInvalidError,
  PreferenceNotFoundError,
  REVIEW_ERROR_CODES,
  ReviewError,
} from "./review-errors.js";
export { migrateReview, REVIEW_MIGRATIONS_TABLE } from "./store/review-migrate.js";
