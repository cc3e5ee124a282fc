/** A leaf written into the JSON text as is: numbers JSON.stringify cannot spell (`1e309`, `-0`) or deep nesting. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Serializes a generated value; {@link RawJson} leaves are written verbatim. Generated values are shallow. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** `[[[…]]]` nested `depth` deep as text (no recursion anywhere). */
export function deepArrayText(depth: number): string {
  return `${"[".repeat(depth)}0${"]".repeat(depth)}`;
}

/** `{"a":{"a":…}}` nested `depth` deep as text. */
export function deepObjectText(depth: number): string {
  return `${'{"a":'.repeat(depth)}0${"}".repeat(depth)}`;
}
