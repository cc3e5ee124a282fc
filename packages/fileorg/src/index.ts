/**
 * @module @vetted/fileorg
 *
 * Review-first file organization: analyze a folder into a manifest of proposed moves, review and edit it
 * (a prioritized queue, batch triage, rules, learned suggestions, an inbox), apply it with a write-ahead
 * journal, and roll it back exactly. No file is ever lost or overwritten.
 */

export { runTransaction } from "@vetted/store";
export * from "./domain/public.js";
export * from "./engine/public.js";
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
