/**
 * @module @vetted/store/limits
 * The pure part of `@vetted/store` (no I/O, no clock, no database): JSON nesting-depth limits and
 * linear-time user regular expressions, for the engines' `domain/` modules.
 */
export { NestingTooDeepError, RegexInvalidError, StoreError, type StoreErrorCode } from "./errors.js";
export { assertJsonDepth, exceedsJsonDepth, exceedsJsonTextDepth, MAX_JSON_DEPTH } from "./json-depth.js";
export { compileUserRegex, MAX_REGEX_LENGTH, type UserRegex, userRegexProblem } from "./safe-regex.js";
