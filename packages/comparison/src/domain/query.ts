import {
  ComparisonError,
  UnknownFilterValueError,
  UnknownGroupError,
  UnknownQueryFieldError,
} from "../errors.js";
import { SCALAR_ROW_FIELDS } from "./lint.js";
import type { ComparisonDocument, ComparisonRow, FilterGroup } from "./schema.js";

/** The row fields a query can filter on: every field holding a string or a boolean. */
export type ScalarRowField = {
  [K in keyof ComparisonRow]: ComparisonRow[K] extends string | boolean ? K : never;
}[keyof ComparisonRow];

/** Conditions on row fields: a value, or a list of values any of which matches. */
export type WhereClause = {
  readonly [K in ScalarRowField]?: ComparisonRow[K] | readonly ComparisonRow[K][];
};

/** What a reader has picked: field conditions and filter values. */
export interface Selection {
  /** Conditions on row fields: AND across fields, OR within a field's list. */
  readonly where?: WhereClause;
  /**
   * Picked filter values as `"<groupId>:<valueId>"` (a row matches when a picked value lists it): AND
   * across groups, OR within a group.
   */
  readonly groups?: readonly string[];
}

/** One value of a filter group and how many rows of the selection it lists. */
export interface FacetValue {
  readonly id: string;
  readonly label: string;
  readonly count: number;
}

/** The counts of one filter group under a selection. */
export interface Facet {
  readonly id: string;
  readonly label: string;
  readonly field: string;
  readonly values: readonly FacetValue[];
}

/** A filter group with each value resolved to its rows (in document order). */
export interface ResolvedGroup {
  readonly id: string;
  readonly label: string;
  readonly field: string;
  readonly values: ReadonlyArray<{
    readonly id: string;
    readonly label: string;
    readonly rows: readonly ComparisonRow[];
  }>;
}

type RowPredicate = (row: ComparisonRow) => boolean;

function findGroup(document: ComparisonDocument, id: string): FilterGroup {
  const group = document.filters.find((candidate) => candidate.id === id);
  if (group === undefined) {
    throw new UnknownGroupError(
      id,
      document.filters.map((candidate) => candidate.id),
    );
  }
  return group;
}

function compileSelection(document: ComparisonDocument, selection: Selection): RowPredicate[] {
  const predicates: RowPredicate[] = [];
  for (const [field, wanted] of Object.entries(selection.where ?? {})) {
    if (!SCALAR_ROW_FIELDS.includes(field)) throw new UnknownQueryFieldError(field, SCALAR_ROW_FIELDS);
    if (wanted === undefined) continue;
    const accepted = new Set<unknown>(Array.isArray(wanted) ? wanted : [wanted]);
    const key = field as ScalarRowField;
    predicates.push((row) => accepted.has(row[key]));
  }
  const picked = new Map<string, Set<string>>();
  for (const reference of selection.groups ?? []) {
    const separator = reference.indexOf(":");
    if (separator <= 0) {
      throw new ComparisonError(
        "INVALID_SELECTION",
        `Picked filter values are written "<groupId>:<valueId>", not "${reference}".`,
        { reference },
      );
    }
    const group = findGroup(document, reference.slice(0, separator));
    const valueId = reference.slice(separator + 1);
    const value = group.values.find((candidate) => candidate.id === valueId);
    if (value === undefined) {
      throw new UnknownFilterValueError(
        group.id,
        valueId,
        group.values.map((candidate) => candidate.id),
      );
    }
    const ids = picked.get(group.id) ?? new Set<string>();
    for (const id of value.comparisonIds) ids.add(id);
    picked.set(group.id, ids);
  }
  for (const ids of picked.values()) predicates.push((row) => ids.has(row.id));
  return predicates;
}

/**
 * The rows of a document matching a selection, in document order. Throws `UNKNOWN_QUERY_FIELD`,
 * `UNKNOWN_GROUP` or `UNKNOWN_FILTER_VALUE` (naming the known ones), or `INVALID_SELECTION` for a
 * picked value not written `"group:value"`.
 */
export function query(document: ComparisonDocument, selection: Selection = {}): ComparisonRow[] {
  const predicates = compileSelection(document, selection);
  return document.comparisons.filter((row) => predicates.every((predicate) => predicate(row)));
}

/**
 * Counts, for every filter group, how many rows of the current selection each value lists. Counts are
 * taken among the rows `query` returns for the whole selection (the group's own picks included).
 */
export function facets(document: ComparisonDocument, selection: Selection = {}): Facet[] {
  const selected = new Set(query(document, selection).map((row) => row.id));
  return document.filters.map((group) => ({
    id: group.id,
    label: group.label,
    field: group.field,
    values: group.values.map((value) => ({
      id: value.id,
      label: value.label,
      count: new Set(value.comparisonIds.filter((id) => selected.has(id))).size,
    })),
  }));
}

/** A filter group resolved to its rows. Throws `UNKNOWN_GROUP`, naming the known ids, for an unknown id. */
export function group(document: ComparisonDocument, id: string): ResolvedGroup {
  const found = findGroup(document, id);
  return {
    id: found.id,
    label: found.label,
    field: found.field,
    values: found.values.map((value) => {
      const ids = new Set(value.comparisonIds);
      return {
        id: value.id,
        label: value.label,
        rows: document.comparisons.filter((row) => ids.has(row.id)),
      };
    }),
  };
}
