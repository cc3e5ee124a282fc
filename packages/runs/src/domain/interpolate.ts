/** The values a step may reference as `${params.x}`, `${vars.x}`, `${secrets.x}`, `${gate.x}`. */
export interface Scope {
  params: Readonly<Record<string, unknown>>;
  vars: Readonly<Record<string, unknown>>;
  secrets: Readonly<Record<string, unknown>>;
  gate: Readonly<Record<string, unknown>>;
}

/** The outcome of {@link interpolate}: the resolved value, or the first reference that did not resolve. */
export type Interpolated = { ok: true; value: unknown } | { ok: false; reference: string };

const REFERENCE = /\$\{(params|vars|secrets|gate)\.([A-Za-z0-9_]+)\}/g;
const WHOLE = /^\$\{(params|vars|secrets|gate)\.([A-Za-z0-9_]+)\}$/;

type Namespace = keyof Scope;

function lookup(scope: Scope, ns: Namespace, key: string): { found: boolean; value: unknown } {
  const bag = scope[ns];
  return Object.hasOwn(bag, key) ? { found: true, value: bag[key] } : { found: false, value: undefined };
}

function interpolateString(text: string, scope: Scope): Interpolated {
  const whole = WHOLE.exec(text);
  if (whole !== null) {
    const [, ns, key] = whole as unknown as [string, Namespace, string];
    const hit = lookup(scope, ns, key);
    return hit.found ? { ok: true, value: hit.value } : { ok: false, reference: text };
  }
  let missing: string | undefined;
  const value = text.replace(REFERENCE, (match, ns: Namespace, key: string) => {
    const hit = lookup(scope, ns, key);
    if (!hit.found) {
      missing ??= match;
      return match;
    }
    return typeof hit.value === "string" ? hit.value : JSON.stringify(hit.value);
  });
  return missing === undefined ? { ok: true, value } : { ok: false, reference: missing };
}

/**
 * Resolves every `${ns.key}` in `value` (strings, arrays and objects, deeply). A string that is exactly one
 * reference takes the referenced value with its type; references inside longer strings are spliced in.
 */
export function interpolate(value: unknown, scope: Scope): Interpolated {
  if (typeof value === "string") return interpolateString(value, scope);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const r = interpolate(item, scope);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return { ok: true, value: out };
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = interpolate(v, scope);
      if (!r.ok) return r;
      out[k] = r.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

/** True when `value` references `${ns.key}` anywhere (e.g. a step consuming `${gate.otp_code}`). */
export function references(value: unknown, ns: Namespace, key: string): boolean {
  return JSON.stringify(value ?? null).includes(`\${${ns}.${key}}`);
}
