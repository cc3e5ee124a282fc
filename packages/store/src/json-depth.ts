import { NestingTooDeepError } from "./errors.js";

/** The nesting depth every JSON body and every stored JSON value is held to. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether a parsed value nests objects/arrays deeper than `limit` (a scalar has depth 0, `[]` depth 1).
 * Iterative, so a hostile value cannot overflow the stack; stops at the first path past the limit.
 */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const current = top.value;
    if (current === null || typeof current !== "object") continue;
    const depth = top.depth + 1;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) {
      if (child !== null && typeof child === "object") stack.push({ value: child, depth });
    }
  }
  return false;
}

/**
 * The offset of the first `[` or `{` that nests deeper than `limit` in JSON text, judged by one scan of
 * brackets outside strings — before any parser (a recursive one could overflow) sees the text. `undefined`
 * when the text stays within the limit; malformed text is not judged here.
 */
export function findTooDeepOffset(text: string, limit: number = MAX_JSON_DEPTH): number | undefined {
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

/** Whether JSON text nests deeper than `limit` (see {@link findTooDeepOffset}). */
export function exceedsJsonTextDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  return findTooDeepOffset(text, limit) !== undefined;
}

/** Throws {@link NestingTooDeepError} (`NESTING_TOO_DEEP`) when `value` nests deeper than `limit`. */
export function assertJsonDepth(value: unknown, where: string, limit: number = MAX_JSON_DEPTH): void {
  if (exceedsJsonDepth(value, limit)) throw new NestingTooDeepError(where, limit);
}
