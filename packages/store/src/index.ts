/**
 * @module @vetted/store
 * Shared plumbing of the Vetted engines: the per-client write lock and transactions, opaque keyset cursors
 * and pages, migrate-with-retry, clock and id ports, limits on hostile input (JSON nesting depth,
 * linear-time user regular expressions) and per-installation key files. The guarded database client
 * (`openDatabase`, `createDatabaseClient`) lives in `@vetted/store/database`, so this entry needs no driver.
 */
export {
  CursorInvalidError,
  type CursorPart,
  type CursorShape,
  decodeCursor,
  encodeCursor,
} from "./cursor.js";
export {
  DatabaseBusyError,
  findBusyError,
  NestingTooDeepError,
  RegexInvalidError,
  StoreError,
  type StoreErrorCode,
  WriteInsideWriterError,
} from "./errors.js";
export { runTransaction } from "./group-commit.js";
export {
  assertJsonDepth,
  exceedsJsonDepth,
  exceedsJsonTextDepth,
  findTooDeepOffset,
  MAX_JSON_DEPTH,
} from "./json-depth.js";
export { type KeyFileOptions, loadKeyFile } from "./key-file.js";
export { findDrizzleFolder, type MigrationSet, migrateWithRetry } from "./migrate.js";
export { DEFAULT_PAGE_LIMIT, type KeysetPage, MAX_PAGE_LIMIT, toKeysetPage } from "./paging.js";
export { type Clock, type IdGenerator, randomIds, systemClock } from "./ports.js";
export { compileUserRegex, MAX_REGEX_LENGTH, type UserRegex, userRegexProblem } from "./safe-regex.js";
export { statementWrites } from "./sql-kind.js";
export { execInTx, executeInTx, type HeldStatement } from "./statements.js";
export {
  BACKGROUND,
  type GroupCommitSettings,
  type Tx,
  type WriteLock,
  type WriteOptions,
  writeLockFor,
  writeLockForClient,
} from "./write-lock.js";
