import { visit } from "jsonc-parser";
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

function pointerOf(path: readonly (string | number)[], key: string): string {
  let pointer = "";
  for (const token of path) pointer += `/${escapePointerToken(String(token))}`;
  return `${pointer}/${escapePointerToken(key)}`;
}

/**
 * Every repeated key of every object in a JSON text, in text order. `JSON.parse` keeps the last value of a
 * repeated key without a word; this scan (jsonc-parser's visitor, one pass, keys compared after
 * unescaping) finds each repeat and the first occurrence it shadows. Meant for text `JSON.parse` accepted.
 */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const open: Array<Map<string, number>> = [];
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Map());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onObjectProperty: (key, offset, _length, _line, _character, pathSupplier) => {
        const keys = open.at(-1);
        if (keys === undefined) return;
        const firstOffset = keys.get(key);
        if (firstOffset === undefined) {
          keys.set(key, offset);
          return;
        }
        found.push({ key, pointer: pointerOf(pathSupplier(), key), offset, firstOffset });
      },
    },
    { disallowComments: true, allowTrailingComma: false },
  );
  return found;
}
