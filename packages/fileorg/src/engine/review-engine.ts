/** The review engine's modules live in `./review/`; this path keeps the names the package imports. */
export { createReviewEngine, type ReviewEngine, type ReviewEngineOptions } from "./review/index.js";
export { LEARNED_LIST } from "./review/learning.js";
export { REVIEW_QUEUE_LIST } from "./review/queue.js";
