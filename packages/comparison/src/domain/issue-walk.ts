import {
  ARTICLE,
  describeSpec,
  describeValue,
  EXPECTED,
  quoteList,
  suggestName,
  typeName,
} from "./issue-text.js";
import type { Issue, IssueParam, SchemaIssueCode } from "./issues.js";
import { escapePointerToken } from "./issues.js";
import { isPlainObject, isQuicklyValid, isTextList } from "./quick-check.js";
import type { FieldSpec, ObjectSpec } from "./shape.js";
import { DOCUMENT_SPEC } from "./shape.js";

/*
 * The issue walk of the validator: driven by the shape table, it reports every issue of a value with its
 * place and message. It is authoritative; the quick checks only let it skip the elements that are fine.
 */

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
export interface Place {
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

/** Gathers the issues of one walk, in document order. */
export class IssueCollector {
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
        this.enumValue(value, spec.values, place, name);
        return;
      case "boolean":
        if (typeof value !== "boolean") this.type(place, "boolean", value);
        return;
      case "integer":
        this.integer(value, spec, place);
        return;
      case "strings":
        this.strings(value, place);
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

  enumValue(value: unknown, allowed: readonly string[], place: Place, name: string): void {
    if (typeof value === "string" && allowed.includes(value)) return;
    if (typeof value !== "string") {
      this.add(
        "INVALID_ENUM",
        place.pointer,
        `${place.label()} must be one of ${quoteList(allowed)}, not ${describeValue(value)}.`,
        { received: typeName(value), allowed },
      );
      return;
    }
    const suggestion = suggestName(value, allowed);
    const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
    this.add(
      "INVALID_ENUM",
      place.pointer,
      `${JSON.stringify(value)} is not an allowed ${name}; use one of ${quoteList(allowed)}.${hint}`,
      suggestion === undefined ? { value, allowed } : { value, allowed, suggestion },
    );
  }

  integer(value: unknown, spec: { readonly minimum: number; readonly maximum: number }, place: Place): void {
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
  }

  strings(value: unknown, place: Place): void {
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

/**
 * Walks a value against the document shape and returns every schema issue, in document order.
 * Prefer `validate` (./validate.ts), which skips this walk for valid documents.
 */
export function collectIssues(input: unknown): Issue[] {
  const collector = new IssueCollector();
  collector.object(input, DOCUMENT_SPEC, "");
  return collector.issues;
}
