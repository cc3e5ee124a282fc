import type { Issue, IssueParam, LintIssueCode, Severity } from "./issues.js";
import type { ComparisonDocument, ComparisonRow } from "./schema.js";
import { ROW_SPEC } from "./shape.js";

/** A rule's configured severity; `off` disables it. */
export type RuleSeverity = Severity | "off";

/** The default severity of every lint rule. */
export const DEFAULT_LINT_SEVERITIES: Readonly<Record<LintIssueCode, Severity>> = {
  DUPLICATE_ROW_ID: "error",
  DUPLICATE_FILTER_ID: "error",
  DUPLICATE_VALUE_ID: "error",
  UNKNOWN_ROW_REFERENCE: "error",
  UNKNOWN_COMPARE_AGAINST: "error",
  SELF_COMPARISON: "error",
  UNKNOWN_FILTER_FIELD: "error",
  FILTER_FIELD_NOT_SCALAR: "error",
  FILTER_VALUE_MISMATCH: "error",
  FILTER_VALUE_NOT_DERIVED: "warning",
};

/** Options of {@link lint}. */
export interface LintOptions {
  /** Severity per rule, overriding {@link DEFAULT_LINT_SEVERITIES}. */
  readonly severities?: Readonly<Partial<Record<LintIssueCode, RuleSeverity>>>;
  /**
   * Ids of hand-curated filter groups: their values list rows by hand, so the derivation rules
   * (`FILTER_VALUE_MISMATCH`, `FILTER_VALUE_NOT_DERIVED`) skip them. Every other rule still applies.
   */
  readonly curatedGroups?: readonly string[];
}

/** Row fields holding a scalar (string or boolean), which filter groups and queries can use. */
export const SCALAR_ROW_FIELDS: readonly string[] = Object.entries(ROW_SPEC.fields)
  .filter(([, spec]) => spec.type !== "strings" && spec.type !== "objects")
  .map(([key]) => key);

class LintCollector {
  readonly issues: Issue[] = [];
  constructor(private readonly severities: Readonly<Partial<Record<LintIssueCode, RuleSeverity>>>) {}

  add(code: LintIssueCode, pointer: string, message: string, params: Record<string, IssueParam>): void {
    const severity = this.severities[code] ?? DEFAULT_LINT_SEVERITIES[code];
    if (severity === "off") return;
    this.issues.push({ code, severity, pointer, message, params });
  }

  enabled(...codes: LintIssueCode[]): boolean {
    return codes.some((code) => (this.severities[code] ?? DEFAULT_LINT_SEVERITIES[code]) !== "off");
  }
}

function firstSeen<T>(
  items: readonly T[],
  idOf: (item: T) => string,
  onDuplicate: (index: number, id: string, first: number) => void,
): Map<string, number> {
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const id = idOf(item);
    const first = seen.get(id);
    if (first === undefined) seen.set(id, index);
    else onDuplicate(index, id, first);
  });
  return seen;
}

/**
 * Checks the integrity rules a schema cannot express, on a document `validate` accepted: unique ids,
 * references naming existing rows, no self-comparison, filter fields naming scalar row fields, and
 * derived filter groups matching their rows. Returns the issues in document order.
 */
export function lint(document: ComparisonDocument, options: LintOptions = {}): Issue[] {
  const out = new LintCollector(options.severities ?? {});
  const curated = new Set(options.curatedGroups ?? []);
  const rowIndex = lintRows(out, document.comparisons);
  firstSeen(
    document.filters,
    (group) => group.id,
    (index, id, first) =>
      out.add(
        "DUPLICATE_FILTER_ID",
        `/filters/${index}/id`,
        `Filter group id "${id}" is already used by /filters/${first}; group ids must be unique.`,
        { id, first: `/filters/${first}` },
      ),
  );

  document.filters.forEach((group, groupIndex) => {
    lintFilterGroup(out, document.comparisons, rowIndex, group, groupIndex, curated.has(group.id));
  });
  return out.issues;
}

/** Unique row ids and `compareAgainst` references naming other existing rows; answers the row index. */
function lintRows(out: LintCollector, rows: readonly ComparisonRow[]): Map<string, number> {
  const rowIndex = firstSeen(
    rows,
    (row) => row.id,
    (index, id, first) =>
      out.add(
        "DUPLICATE_ROW_ID",
        `/comparisons/${index}/id`,
        `Row id "${id}" is already used by /comparisons/${first}; row ids must be unique.`,
        { id, first: `/comparisons/${first}` },
      ),
  );

  rows.forEach((row, index) => {
    row.compareAgainst.forEach((target, position) => {
      const pointer = `/comparisons/${index}/compareAgainst/${position}`;
      if (target === row.id) {
        out.add("SELF_COMPARISON", pointer, `Row "${row.id}" compares against itself; remove "${target}".`, {
          id: row.id,
        });
      } else if (!rowIndex.has(target)) {
        out.add(
          "UNKNOWN_COMPARE_AGAINST",
          pointer,
          `Row "${row.id}" compares against "${target}", which is no row id of this document.`,
          { id: row.id, reference: target },
        );
      }
    });
  });

  return rowIndex;
}

/** One filter group: unique value ids, references to existing rows, a scalar field, derived values. */
function lintFilterGroup(
  out: LintCollector,
  rows: readonly ComparisonRow[],
  rowIndex: ReadonlyMap<string, number>,
  group: ComparisonDocument["filters"][number],
  groupIndex: number,
  curated: boolean,
): void {
  const groupPointer = `/filters/${groupIndex}`;
  firstSeen(
    group.values,
    (value) => value.id,
    (index, id, first) =>
      out.add(
        "DUPLICATE_VALUE_ID",
        `${groupPointer}/values/${index}/id`,
        `Value id "${id}" is already used in filter group "${group.id}" (${groupPointer}/values/${first}).`,
        { group: group.id, id, first: `${groupPointer}/values/${first}` },
      ),
  );
  group.values.forEach((value, valueIndex) => {
    value.comparisonIds.forEach((id, position) => {
      if (rowIndex.has(id)) return;
      out.add(
        "UNKNOWN_ROW_REFERENCE",
        `${groupPointer}/values/${valueIndex}/comparisonIds/${position}`,
        `Filter value "${group.id}/${value.id}" lists "${id}", which is no row id of this document.`,
        { group: group.id, value: value.id, reference: id },
      );
    });
  });

  if (!Object.hasOwn(ROW_SPEC.fields, group.field)) {
    out.add(
      "UNKNOWN_FILTER_FIELD",
      `${groupPointer}/field`,
      `Filter group "${group.id}" filters on "${group.field}", which is no row field; use one of ${SCALAR_ROW_FIELDS.join(", ")}.`,
      { group: group.id, field: group.field, allowed: SCALAR_ROW_FIELDS },
    );
    return;
  }
  if (!SCALAR_ROW_FIELDS.includes(group.field)) {
    out.add(
      "FILTER_FIELD_NOT_SCALAR",
      `${groupPointer}/field`,
      `Filter group "${group.id}" filters on "${group.field}", which holds a list; use a scalar field: ${SCALAR_ROW_FIELDS.join(", ")}.`,
      { group: group.id, field: group.field, allowed: SCALAR_ROW_FIELDS },
    );
    return;
  }
  if (curated || !out.enabled("FILTER_VALUE_MISMATCH", "FILTER_VALUE_NOT_DERIVED")) return;
  checkDerivedGroup(out, rows, group, groupPointer);
}

function checkDerivedGroup(
  out: LintCollector,
  rows: readonly ComparisonRow[],
  group: ComparisonDocument["filters"][number],
  groupPointer: string,
): void {
  const field = group.field as keyof ComparisonRow;
  const rowsByValue = new Map<string, ComparisonRow[]>();
  for (const row of rows) {
    const key = String(row[field]);
    const list = rowsByValue.get(key);
    if (list) list.push(row);
    else rowsByValue.set(key, [row]);
  }
  const rowsById = new Map(rows.map((row) => [row.id, row]));
  group.values.forEach((value, valueIndex) => {
    const valuePointer = `${groupPointer}/values/${valueIndex}`;
    const expected = rowsByValue.get(value.id);
    if (expected === undefined) {
      out.add(
        "FILTER_VALUE_NOT_DERIVED",
        `${valuePointer}/id`,
        `No row has ${group.field} = "${value.id}", so "${group.id}/${value.id}" looks hand-curated; if the group is curated on purpose, mark it so (lint option curatedGroups, CLI --curated ${group.id}).`,
        { group: group.id, value: value.id, field: group.field },
      );
      return;
    }
    const listed = new Set(value.comparisonIds);
    value.comparisonIds.forEach((id, position) => {
      const row = rowsById.get(id);
      if (row === undefined || String(row[field]) === value.id) return;
      out.add(
        "FILTER_VALUE_MISMATCH",
        `${valuePointer}/comparisonIds/${position}`,
        `"${group.id}/${value.id}" lists row "${id}", whose ${group.field} is "${String(row[field])}"; list it under that value instead.`,
        { group: group.id, value: value.id, row: id, field: group.field, actual: String(row[field]) },
      );
    });
    const missing = expected.filter((row) => !listed.has(row.id)).map((row) => row.id);
    if (missing.length > 0) {
      out.add(
        "FILTER_VALUE_MISMATCH",
        `${valuePointer}/comparisonIds`,
        `"${group.id}/${value.id}" does not list ${missing.map((id) => `"${id}"`).join(", ")}, whose ${group.field} is "${value.id}"; add ${missing.length === 1 ? "it" : "them"}.`,
        { group: group.id, value: value.id, field: group.field, missing },
      );
    }
  });
}
