import { findTooDeepOffset as findOffset } from "@vetted/store/json-depth";

/** How deep a comparison document's JSON text may nest objects and arrays (the schema itself needs 4). */
export const MAX_DOCUMENT_DEPTH = 64;

/**
 * The offset of the first `[` or `{` that nests deeper than `limit` in a JSON text (the one scan from
 * `@vetted/store/json-depth`), `undefined` when the text stays within the limit.
 */
export function findTooDeepOffset(text: string, limit: number = MAX_DOCUMENT_DEPTH): number | undefined {
  return findOffset(text, limit);
}
