/**
 * @module @vetted/fileorg
 */
export {};
