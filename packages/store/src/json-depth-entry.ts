/**
 * @module @vetted/store/json-depth
 * JSON nesting-depth limits alone: no dependency at all, small enough for a browser bundle.
 */
export { NestingTooDeepError, StoreError, type StoreErrorCode } from "./errors.js";
export {
  assertJsonDepth,
  exceedsJsonDepth,
  exceedsJsonTextDepth,
  findTooDeepOffset,
  MAX_JSON_DEPTH,
} from "./json-depth.js";
