/** Keyset pages are `@vetted/store`'s (kept here as a re-export for the modules that still import it). */
export { type KeysetPage, toKeysetPage } from "@vetted/store";
