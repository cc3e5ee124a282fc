import type { ObjectSpec } from "./shape.js";
import { FILTER_GROUP_SPEC, FILTER_VALUE_SPEC, ROW_SPEC } from "./shape.js";

/*
 * The quick layer of the validator: hand-written checks that only answer yes/no and allocate nothing.
 * They are what a valid document costs. They may only be stricter than the shape table, never looser
 * (the Ajv cross-check test holds both to the schema).
 */

const ROW_KEY_COUNT = 19;

function isText(value: unknown): boolean {
  return typeof value === "string" && value !== "";
}

/** A list of non-empty strings. */
export function isTextList(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== "string" || item === "") return false;
  }
  return true;
}

/** An object that is not null and not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function countKeys(value: object): number {
  let count = 0;
  for (const _ in value) count++;
  return count;
}

/** A valid comparison row. */
export function isRow(value: unknown): boolean {
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

/** A valid value of a filter group. */
export function isFilterValue(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    countKeys(value) === 3 &&
    isText(value.id) &&
    isText(value.label) &&
    isTextList(value.comparisonIds)
  );
}

/** A valid filter group, values included. */
export function isFilterGroup(value: unknown): boolean {
  if (!isPlainObject(value) || countKeys(value) !== 4) return false;
  if (!isText(value.id) || !isText(value.label) || !isText(value.field)) return false;
  const values = value.values;
  if (!Array.isArray(values)) return false;
  for (let i = 0; i < values.length; i++) if (!isFilterValue(values[i])) return false;
  return true;
}

/** Whether the top level of a document is fine, leaving its filter groups and rows to be checked. */
export function isValidHeader(value: unknown): value is { filters: unknown[]; comparisons: unknown[] } {
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

/** The yes/no check of one array element, so the issue walk can skip the elements that are fine. */
export function isQuicklyValid(value: unknown, spec: ObjectSpec): boolean {
  if (spec === ROW_SPEC) return isRow(value);
  if (spec === FILTER_GROUP_SPEC) return isFilterGroup(value);
  if (spec === FILTER_VALUE_SPEC) return isFilterValue(value);
  return false;
}
