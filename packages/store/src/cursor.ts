import { StoreError } from "./errors.js";

/** One part of a keyset sort key. */
export type CursorPart = string | number;
/** What each part of a list's sort key must be. */
export type CursorShape = readonly ("string" | "integer")[];

const VERSION = 1;

/** A cursor that is malformed, of another list, or of another version. */
export class CursorInvalidError extends StoreError {
  constructor(reason: string) {
    super(
      "CURSOR_INVALID",
      `The cursor is not valid for this list (${reason}); start again without a cursor and use the next_cursor it returns.`,
    );
    this.name = "CursorInvalidError";
  }
}

/** Encodes the sort key of a list's last item as an opaque, versioned base64url cursor bound to `list`. */
export function encodeCursor(list: string, key: readonly CursorPart[]): string {
  return Buffer.from(JSON.stringify([VERSION, list, ...key]), "utf8").toString("base64url");
}

function parsePart(part: unknown, kind: "string" | "integer", index: number): CursorPart {
  if (kind === "string" && typeof part === "string") return part;
  if (kind === "integer" && typeof part === "number" && Number.isSafeInteger(part)) return part;
  throw new CursorInvalidError(`part ${index} is not a${kind === "integer" ? "n integer" : " string"}`);
}

/**
 * Decodes a cursor made by {@link encodeCursor} for the same `list` with a key of `shape`. Throws
 * {@link CursorInvalidError} (`CURSOR_INVALID`) for anything else: garbage, another list's cursor, another
 * version, a key of the wrong shape, non-finite or non-integer numbers.
 */
export function decodeCursor(cursor: string, list: string, shape: CursorShape): CursorPart[] {
  if (cursor.length === 0 || cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new CursorInvalidError("not base64url");
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw new CursorInvalidError("not a cursor");
  }
  if (!Array.isArray(decoded) || decoded[0] !== VERSION) throw new CursorInvalidError("unknown version");
  if (decoded[1] !== list) throw new CursorInvalidError("made for another list");
  const parts = decoded.slice(2);
  if (parts.length !== shape.length) throw new CursorInvalidError("wrong length");
  return shape.map((kind, i) => parsePart(parts[i], kind, i));
}
