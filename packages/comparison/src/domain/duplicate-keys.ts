import { escapePointerToken } from "./issues.js";

/** A key written twice (or more) in one JSON object: where the repeat is and where the key first was. */
export interface DuplicateKey {
  readonly key: string;
  /** RFC 6901 JSON Pointer of the key (the object's pointer plus the key). */
  readonly pointer: string;
  /** Offset of the repeated key's opening quote. */
  readonly offset: number;
  /** Offset of the first occurrence's opening quote. */
  readonly firstOffset: number;
}

/** An open object (its keys → offset of their first occurrence) or array (`keys` null). */
interface OpenContainer {
  readonly keys: Map<string, number> | null;
  /** The current key of an object, the current index of an array. */
  token: string | number;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const COMMA = 44;

function pointerOf(open: readonly OpenContainer[], key: string): string {
  let pointer = "";
  for (let depth = 0; depth < open.length - 1; depth++) {
    pointer += `/${escapePointerToken(String(open[depth]?.token))}`;
  }
  return `${pointer}/${escapePointerToken(key)}`;
}

/** The offset of the quote closing the string that opens at `start` (native `indexOf`, escapes skipped). */
function endOfString(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/** What one scan of a JSON text found: the first bracket past the depth limit, and the repeated keys. */
export interface JsonTextScan {
  /** Offset of the first `[` or `{` nesting deeper than the limit (the scan stops there). */
  readonly tooDeepOffset: number | undefined;
  /** Every repeated key before that point, in text order. */
  readonly duplicates: readonly DuplicateKey[];
}

/**
 * One iterative pass over a JSON text, before any parser sees it: the first `[` or `{` nesting deeper
 * than `limit` (judged as `findTooDeepOffset` of `@vetted/store/json-depth` judges it: brackets outside
 * strings) and every repeated key of every object (`JSON.parse` keeps the last value of a repeated key
 * without a word), each with the first occurrence it shadows; keys are compared after unescaping.
 * Malformed text is not judged here: its findings mean something only once `JSON.parse` accepts it.
 */
export function scanJsonText(text: string, limit: number): JsonTextScan {
  const duplicates: DuplicateKey[] = [];
  const open: OpenContainer[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(text, i);
      const top = open.at(-1);
      if (expectKey && top?.keys) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        top.token = key;
        const firstOffset = top.keys.get(key);
        if (firstOffset === undefined) top.keys.set(key, i);
        else duplicates.push({ key, pointer: pointerOf(open, key), offset: i, firstOffset });
      }
      expectKey = false;
      i = end;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (open.length >= limit) return { tooDeepOffset: i, duplicates };
      open.push(code === OPEN_BRACE ? { keys: new Map(), token: "" } : { keys: null, token: 0 });
      expectKey = code === OPEN_BRACE;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      open.pop();
      expectKey = false;
    } else if (code === COMMA) {
      const top = open.at(-1);
      if (top !== undefined && top.keys === null) top.token = (top.token as number) + 1;
      expectKey = top?.keys != null;
    }
  }
  return { tooDeepOffset: undefined, duplicates };
}

/** Every repeated key of every object in a JSON text, in text order (see {@link scanJsonText}). */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  return [...scanJsonText(text, Number.POSITIVE_INFINITY).duplicates];
}
