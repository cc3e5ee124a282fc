import type { FieldSpec } from "./shape.js";

/* How issue messages describe values and fields, and the "did you mean" of a misspelt name. */

export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number")
    return Number.isFinite(value) ? `the number ${value}` : "a non-finite number";
  if (typeof value === "boolean") return `${value}`;
  return typeof value;
}

export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** The JSON type a field expects, as issue params name it. */
export const EXPECTED: Readonly<Record<FieldSpec["type"], string>> = {
  string: "string",
  enum: "string",
  boolean: "boolean",
  integer: "integer",
  strings: "array",
  objects: "array",
};

/** How a message names a JSON type. */
export const ARTICLE: Readonly<Record<string, string>> = {
  string: "a string",
  boolean: "a boolean",
  integer: "an integer",
  array: "an array",
  object: "an object",
};

function editDistance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] ?? 0;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] ?? 0;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] ?? 0;
}

/** The closest allowed name to a misspelt one, when it is close enough to be a likely typo. */
export function suggestName(input: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  const lower = input.toLowerCase();
  for (const name of allowed) {
    if (Math.abs(name.length - input.length) >= bestDistance) continue;
    const distance = editDistance(lower, name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

export function quoteList(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/** What a field accepts, in words. */
export function describeSpec(spec: FieldSpec): string {
  switch (spec.type) {
    case "string":
      return spec.minLength > 0 ? "a non-empty string" : "a string";
    case "enum":
      return `one of ${quoteList(spec.values)}`;
    case "boolean":
      return "true or false";
    case "integer":
      return `an integer ≥ ${spec.minimum}`;
    case "strings":
      return "an array of non-empty strings";
    case "objects":
      return `an array of ${spec.of.noun} objects`;
  }
}
