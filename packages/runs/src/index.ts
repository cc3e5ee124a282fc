/**
 * @module @vetted/runs
 */
export {};
