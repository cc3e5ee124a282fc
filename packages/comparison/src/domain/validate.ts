import type { Issue, IssueParam, SchemaIssueCode, ValidationResult } from "./issues.js";
import { escapePointerToken } from "./issues.js";
import type { ComparisonDocument } from "./schema.js";
import type { FieldSpec, ObjectSpec } from "./shape.js";
import { DOCUMENT_SPEC, FILTER_GROUP_SPEC, FILTER_VALUE_SPEC, ROW_SPEC } from "./shape.js";

/*
 * Two layers. `isRow` / `isFilterGroup` / `isFilterValue` are hand-written checks that only answer
 * yes/no and allocate nothing: they are what a valid document costs. Each element they reject is walked
 * by `IssueCollector`, driven by the shape table, which reports every issue with its place and message.
 * The walk is authoritative: a quick check may only be stricter, never looser (the Ajv cross-check test
 * holds both to the schema).
 */

const ROW_KEY_COUNT = 19;

function isText(value: unknown): boolean {
  return typeof value === "string" && value !== "";
}

function isTextList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string" || item === "") return false;
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function countKeys(value: object): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

function isRow(value: unknown): boolean {
  if (!isPlainObject(value) || countKeys(value) !== ROW_KEY_COUNT) return false;
  const status = value.status;
  const starterKind = value.starterKind;
  const hostFamily = value.hostFamily;
  const mode = value.firstSuccessMode;
  return (
    isText(value.id) &&
    isText(value.label) &&
    (status === "supported now" ||
      status === "partial" ||
      status === "planned" ||
      status === "research only" ||
      status === "not now") &&
    (starterKind === "builder" || starterKind === "skill") &&
    isText(value.recommendedPack) &&
    (hostFamily === "codex" ||
      hostFamily === "claude-code" ||
      hostFamily === "openclaw" ||
      hostFamily === "mcp" ||
      hostFamily === "none") &&
    (mode === "runtime-invoke" ||
      mode === "read-only-mcp" ||
      mode === "provider-diagnostics" ||
      mode === "docs-truth-sync") &&
    typeof value.readOnly === "boolean" &&
    typeof value.needsRuntimeInvoke === "boolean" &&
    typeof value.needsMcpTransport === "boolean" &&
    isText(value.bestEntry) &&
    isText(value.smokeCommand) &&
    isText(value.copyReadyPackPath) &&
    isTextList(value.compareAgainst) &&
    isTextList(value.recommendedDocs) &&
    isTextList(value.bestWhen) &&
    isTextList(value.avoidWhen) &&
    isTextList(value.safeClaims) &&
    isTextList(value.notYetSupported)
  );
}

function isFilterValue(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    countKeys(value) === 3 &&
    isText(value.id) &&
    isText(value.label) &&
    isTextList(value.comparisonIds)
  );
}

function isFilterGroup(value: unknown): boolean {
  if (!isPlainObject(value) || countKeys(value) !== 4) return false;
  if (!isText(value.id) || !isText(value.label) || !isText(value.field)) return false;
  const values = value.values;
  if (!Array.isArray(values)) return false;
  for (let i = 0; i < values.length; i++) if (!isFilterValue(values[i])) return false;
  return true;
}

/** Whether the top level of a document is fine, leaving its filter groups and rows to be checked. */
function isValidHeader(value: unknown): value is { filters: unknown[]; comparisons: unknown[] } {
  if (!isPlainObject(value) || countKeys(value) !== 4) return false;
  const version = value.comparisonVersion;
  return (
    typeof value.$schema === "string" &&
    typeof version === "number" &&
    Number.isSafeInteger(version) &&
    version >= 1 &&
    Array.isArray(value.filters) &&
    Array.isArray(value.comparisons)
  );
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number")
    return Number.isFinite(value) ? `the number ${value}` : "a non-finite number";
  if (typeof value === "boolean") return `${value}`;
  return typeof value;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const EXPECTED: Readonly<Record<FieldSpec["type"], string>> = {
  string: "string",
  enum: "string",
  boolean: "boolean",
  integer: "integer",
  strings: "array",
  objects: "array",
};

const ARTICLE: Readonly<Record<string, string>> = {
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

function quoteList(values: readonly string[]): string {
  return values.map((value) => JSON.stringify(value)).join(", ");
}

/** The yes/no check of one array element, so the issue walk can skip the elements that are fine. */
function isQuicklyValid(value: unknown, spec: ObjectSpec): boolean {
  if (spec === ROW_SPEC) return isRow(value);
  if (spec === FILTER_GROUP_SPEC) return isFilterGroup(value);
  if (spec === FILTER_VALUE_SPEC) return isFilterValue(value);
  return false;
}

const KEYS = new Map<ObjectSpec, readonly string[]>();

function keysOf(spec: ObjectSpec): readonly string[] {
  let keys = KEYS.get(spec);
  if (keys === undefined) {
    keys = Object.keys(spec.fields);
    KEYS.set(spec, keys);
  }
  return keys;
}

/** Where a value sits, for messages: built only when an issue is reported. */
interface Place {
  readonly pointer: string;
  /** How a message names the value: `"label" of row /comparisons/3`, `item 2 of "bestWhen" of...` */
  readonly label: () => string;
}

function objectName(spec: ObjectSpec, pointer: string): string {
  return pointer === "" ? `the ${spec.noun}` : `${spec.noun} ${pointer}`;
}

function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? token : escapePointerToken(token)}`;
}

class IssueCollector {
  readonly issues: Issue[] = [];

  add(code: SchemaIssueCode, pointer: string, message: string, params: Record<string, IssueParam>): void {
    this.issues.push({ code, severity: "error", pointer, message, params });
  }

  type(place: Place, expected: string, value: unknown): void {
    this.add(
      "INVALID_TYPE",
      place.pointer,
      `${place.label()} must be ${ARTICLE[expected] ?? expected}, not ${describeValue(value)}.`,
      { expected, received: typeName(value) },
    );
  }

  object(value: unknown, spec: ObjectSpec, pointer: string): void {
    if (!isPlainObject(value)) {
      this.type({ pointer, label: () => objectName(spec, pointer) }, "object", value);
      return;
    }
    const allowed = keysOf(spec);
    for (const key in value) {
      if (Object.hasOwn(spec.fields, key)) continue;
      const suggestion = suggestName(key, allowed);
      const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
      this.add(
        "UNKNOWN_KEY",
        childPointer(pointer, key),
        `Unknown key "${key}" in ${objectName(spec, pointer)}: remove it or rename it.${hint} Allowed keys: ${allowed.join(", ")}.`,
        suggestion === undefined ? { key, allowed } : { key, allowed, suggestion },
      );
    }
    for (let i = 0; i < allowed.length; i++) {
      const key = allowed[i] as string;
      const field = spec.fields[key] as FieldSpec;
      const fieldValue = value[key];
      if (fieldValue === undefined) {
        this.add(
          "MISSING_FIELD",
          childPointer(pointer, key),
          `Missing required field "${key}" in ${objectName(spec, pointer)}; expected ${describeSpec(field)}.`,
          { field: key, expected: EXPECTED[field.type] },
        );
        continue;
      }
      if (this.isFine(fieldValue, field)) continue;
      const fieldPointer = childPointer(pointer, key);
      this.field(
        fieldValue,
        field,
        {
          pointer: fieldPointer,
          label: () => `"${key}" of ${objectName(spec, pointer)}`,
        },
        key,
      );
    }
  }

  /** The cheap answer for the common case; `field` reports the details when it says no. */
  isFine(value: unknown, spec: FieldSpec): boolean {
    switch (spec.type) {
      case "string":
        return typeof value === "string" && (spec.minLength === 0 || value !== "");
      case "enum":
        return typeof value === "string" && spec.values.includes(value);
      case "boolean":
        return typeof value === "boolean";
      case "integer":
        return (
          typeof value === "number" &&
          Number.isInteger(value) &&
          value >= spec.minimum &&
          value <= spec.maximum
        );
      case "strings":
        return isTextList(value);
      case "objects":
        return false;
    }
  }

  field(value: unknown, spec: FieldSpec, place: Place, name: string): void {
    switch (spec.type) {
      case "string":
        if (typeof value !== "string") this.type(place, "string", value);
        else if (spec.minLength > 0 && value === "") this.empty(place);
        return;
      case "enum":
        if (typeof value === "string" && spec.values.includes(value)) return;
        if (typeof value !== "string") {
          this.add(
            "INVALID_ENUM",
            place.pointer,
            `${place.label()} must be one of ${quoteList(spec.values)}, not ${describeValue(value)}.`,
            { received: typeName(value), allowed: spec.values },
          );
          return;
        }
        {
          const suggestion = suggestName(value, spec.values);
          const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
          this.add(
            "INVALID_ENUM",
            place.pointer,
            `${JSON.stringify(value)} is not an allowed ${name}; use one of ${quoteList(spec.values)}.${hint}`,
            suggestion === undefined
              ? { value, allowed: spec.values }
              : { value, allowed: spec.values, suggestion },
          );
        }
        return;
      case "boolean":
        if (typeof value !== "boolean") this.type(place, "boolean", value);
        return;
      case "integer":
        if (typeof value !== "number") this.type(place, "integer", value);
        else if (!Number.isInteger(value)) {
          this.add(
            "NOT_INTEGER",
            place.pointer,
            `${place.label()} must be a whole number, not ${describeValue(value)}.`,
            { value: String(value) },
          );
        } else if (value < spec.minimum || value > spec.maximum) {
          this.add(
            "OUT_OF_RANGE",
            place.pointer,
            `${place.label()} must be between ${spec.minimum} and ${spec.maximum}, not ${value}.`,
            { value, minimum: spec.minimum, maximum: spec.maximum },
          );
        }
        return;
      case "strings":
        if (!Array.isArray(value)) {
          this.type(place, "array", value);
          return;
        }
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (typeof item === "string" && item !== "") continue;
          const itemPlace = {
            pointer: childPointer(place.pointer, i),
            label: () => `item ${i} of ${place.label()}`,
          };
          if (typeof item !== "string") this.type(itemPlace, "string", item);
          else this.empty(itemPlace);
        }
        return;
      case "objects": {
        if (!Array.isArray(value)) {
          this.type(place, "array", value);
          return;
        }
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (isQuicklyValid(item, spec.of)) continue;
          this.object(item, spec.of, childPointer(place.pointer, i));
        }
        return;
      }
    }
  }

  empty(place: Place): void {
    this.add(
      "EMPTY_STRING",
      place.pointer,
      `${place.label()} must not be empty; write a value or remove the entry.`,
      { minLength: 1 },
    );
  }
}

function describeSpec(spec: FieldSpec): string {
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

/**
 * Walks a value against the document shape and returns every schema issue, in document order.
 * Prefer {@link validate}, which skips this walk for valid documents.
 */
export function collectIssues(input: unknown): Issue[] {
  const collector = new IssueCollector();
  collector.object(input, DOCUMENT_SPEC, "");
  return collector.issues;
}

/**
 * Validates a parsed JSON value as a comparison document and reports **all** schema issues in one pass.
 * The value is returned as is (not copied) when it is valid. Input is expected to be JSON data: plain
 * objects, arrays, strings, numbers, booleans and null.
 */
export function validate(input: unknown): ValidationResult<ComparisonDocument> {
  if (!isValidHeader(input)) return resultOf(input, collectIssues(input));
  // One pass: each group and row gets the allocation-free check; only those failing it are walked.
  let collector: IssueCollector | undefined;
  const { filters, comparisons } = input;
  for (let i = 0; i < filters.length; i++) {
    if (isFilterGroup(filters[i])) continue;
    collector ??= new IssueCollector();
    collector.object(filters[i], FILTER_GROUP_SPEC, `/filters/${i}`);
  }
  for (let i = 0; i < comparisons.length; i++) {
    if (isRow(comparisons[i])) continue;
    collector ??= new IssueCollector();
    collector.object(comparisons[i], ROW_SPEC, `/comparisons/${i}`);
  }
  return resultOf(input, collector?.issues ?? []);
}

function resultOf(input: unknown, issues: Issue[]): ValidationResult<ComparisonDocument> {
  return issues.length === 0 ? { ok: true, value: input as ComparisonDocument } : { ok: false, issues };
}
