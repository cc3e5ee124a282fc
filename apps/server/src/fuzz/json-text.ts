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

/**
 * A copy of a (shallow, generated) value with one of its leaves — the `pick`-th, modulo their number —
 * replaced by `leaf`; a value without leaves becomes `leaf`. Puts deep nesting inside otherwise valid bodies.
 */
export function replaceLeaf(value: unknown, pick: number, leaf: RawJson): unknown {
  const containers: Array<{ holder: Record<string, unknown> | unknown[]; key: string | number }> = [];
  const copy: unknown = structuredClone(value);
  const stack: unknown[] = [copy];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === null || typeof node !== "object" || node instanceof RawJson) continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(node)
      ? node.map((child, i) => [i, child])
      : Object.entries(node);
    for (const [key, child] of entries) {
      if (child !== null && typeof child === "object" && !(child instanceof RawJson)) stack.push(child);
      else containers.push({ holder: node as Record<string, unknown> | unknown[], key });
    }
  }
  const target = containers[pick % Math.max(containers.length, 1)];
  if (target === undefined) return leaf;
  if (Array.isArray(target.holder)) target.holder[Number(target.key)] = leaf;
  else target.holder[String(target.key)] = leaf;
  return copy;
}
