/**
 * Node-only parts of `@vetted/comparison`: the opt-in file rules (`recommendedDocs` and
 * `copyReadyPackPath` must exist) and reading documents from disk.
 *
 * @module @vetted/comparison/node
 */
export type { FileRuleOptions } from "./node/file-rules.js";
export { checkFiles, DEFAULT_FILE_SEVERITIES } from "./node/file-rules.js";
export type { LoadedDocument } from "./node/load.js";
export { loadDocument } from "./node/load.js";
