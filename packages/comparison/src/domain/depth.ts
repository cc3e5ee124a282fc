/** How deep a comparison document's JSON text may nest objects and arrays (the schema itself needs 4). */
export const MAX_DOCUMENT_DEPTH = 64;

/**
 * The offset of the first `[` or `{` that nests deeper than `limit` in a JSON text, judged by one scan of
 * brackets outside strings — before a parser (a recursive one could overflow) sees the text. `undefined`
 * when the text stays within the limit; malformed text is not judged here.
 */
export function findTooDeepOffset(text: string, limit: number = MAX_DOCUMENT_DEPTH): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > limit) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}
