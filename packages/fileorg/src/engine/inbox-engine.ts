/** The inbox engine's modules live in `./inbox/`; this path keeps the names the package imports. */
export {
  type AnalyzeFiles,
  createInboxEngine,
  INBOX_BATCHES_LIST,
  type InboxEngine,
  type InboxEngineOptions,
  type InboxScanQuery,
} from "./inbox/index.js";
