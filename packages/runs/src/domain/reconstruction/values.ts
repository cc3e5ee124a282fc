/*
 * Values that flow through a recorded exchange: the leaves of a response that later requests send back
 * (ids, tokens), with the JSONPath that extracts them. Pure.
 */

/** A value a response produced, and where to find it again. */
export interface Produced {
  /** The step whose response holds it. */
  stepId: string;
  /** JSONPath into that response (`$.cart_id`). */
  path: string;
  value: string;
  /** The var it is extracted into once a later request uses it. */
  varName: string;
}

/** A JSONPath segment for `key`: `.key` when plain, else `["key"]`. */
function segment(key: string): string {
  return /^[A-Za-z0-9_$-]+$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A var name from a JSON key: snake case, letters, digits and `_`, starting with a letter. */
export function varNameOf(key: string): string {
  const snake = key
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9_]/g, "_")
    .toLowerCase()
    .replace(/^_+|_+$/g, "");
  const name = /^[a-z]/.test(snake) ? snake : `v_${snake}`;
  return name.slice(0, 60) || "value";
}

/** Every string (and, when `numbers`, every integer of 4+ digits) leaf of `json` at least `minLength` long. */
export function producedLeaves(
  json: unknown,
  minLength: number,
  numbers: boolean,
): Array<{ path: string; key: string; value: string }> {
  const out: Array<{ path: string; key: string; value: string }> = [];
  const walk = (v: unknown, path: string, key: string, depth: number) => {
    if (depth > 20 || out.length > 500) return;
    if (typeof v === "string" && v.length >= minLength && !v.startsWith("[redacted")) {
      out.push({ path, key, value: v });
    } else if (numbers && typeof v === "number" && Number.isInteger(v) && Math.abs(v) >= 1000) {
      out.push({ path, key, value: String(v) });
    } else if (Array.isArray(v)) {
      for (const [i, item] of v.slice(0, 50).entries()) walk(item, `${path}[${i}]`, key, depth + 1);
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) walk(child, `${path}${segment(k)}`, k, depth + 1);
    }
  };
  walk(json, "$", "value", 0);
  return out;
}

/** True for a value that looks generated (a hex or base64url token, a UUID, a prefixed id such as `cart_9f3a…`). */
export function looksDynamic(value: string): boolean {
  return (
    /^[0-9a-f]{16,}$/i.test(value) ||
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ||
    /^[a-z]{2,12}_[A-Za-z0-9]{6,}$/.test(value) ||
    (/^[A-Za-z0-9_-]{20,}$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value))
  );
}
