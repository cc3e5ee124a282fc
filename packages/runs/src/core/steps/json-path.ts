/**
 * Reads a value at a small JSONPath subset: `$`, `$.a.b`, `$.items[0].id`, `$["key"]`.
 * Returns `{ found: false }` when any segment is missing.
 */
export function readJsonPath(root: unknown, path: string): { found: boolean; value: unknown } {
  if (!path.startsWith("$")) return { found: false, value: undefined };
  const segments: Array<string | number> = [];
  const re = /\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\["([^"]*)"\]/gy;
  re.lastIndex = 1;
  while (re.lastIndex < path.length) {
    const m = re.exec(path);
    if (m === null) return { found: false, value: undefined };
    if (m[1] !== undefined) segments.push(m[1]);
    else if (m[2] !== undefined) segments.push(Number(m[2]));
    else segments.push(m[3] ?? "");
  }
  let current: unknown = root;
  for (const seg of segments) {
    if (typeof seg === "number") {
      if (!Array.isArray(current) || seg >= current.length) return { found: false, value: undefined };
      current = current[seg];
    } else {
      if (current === null || typeof current !== "object" || !Object.hasOwn(current, seg)) {
        return { found: false, value: undefined };
      }
      current = (current as Record<string, unknown>)[seg];
    }
  }
  return { found: true, value: current };
}
