/**
 * @module @vetted/store
 * Shared plumbing of the Vetted engines: limits on hostile input (JSON nesting depth, linear-time user
 * regular expressions) and per-installation key files.
 */
export { NestingTooDeepError, RegexInvalidError, StoreError, type StoreErrorCode } from "./errors.js";
export { assertJsonDepth, exceedsJsonDepth, exceedsJsonTextDepth, MAX_JSON_DEPTH } from "./json-depth.js";
export { type KeyFileOptions, loadKeyFile } from "./key-file.js";
export { compileUserRegex, MAX_REGEX_LENGTH, type UserRegex, userRegexProblem } from "./safe-regex.js";
