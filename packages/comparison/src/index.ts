/**
 * @module @vetted/comparison
 */
export {};
