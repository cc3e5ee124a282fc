import { UnknownCuratedGroupError } from "../errors.js";
import { suggestName } from "./issue-text.js";
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
   * An id the document does not define throws `UNKNOWN_GROUP` (with the closest known id).
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

interface Hint {
  readonly text: string;
  readonly params: Record<string, IssueParam>;
}

/** `; did you mean "x"?` and its param, when a likely intended name exists; nothing otherwise. */
function didYouMean(input: string, candidates: readonly string[]): Hint {
  const suggestion = suggestName(input, candidates);
  return suggestion === undefined
    ? { text: "", params: {} }
    : { text: `; did you mean ${JSON.stringify(suggestion)}?`, params: { suggestion } };
}

/**
 * The advice for a reference naming no row. When row ids are repeated, a copied row that kept the wrong
 * id is the likely story, so the message names the repeats (where renaming one would fix the reference).
 */
function referenceHint(reference: string, candidates: readonly string[], repeats: RepeatedRowIds): Hint {
  const typo = didYouMean(reference, candidates);
  const base = typo.text || ".";
  if (repeats.size === 0) return { text: base, params: typo.params };
  const places = [...repeats].map(([id, pointer]) => `${JSON.stringify(id)} at ${pointer}`);
  return {
    text: `${base} Row ids are repeated (${places.join(", ")}): if one of those rows should be ${JSON.stringify(reference)}, rename it.`,
    params: { ...typo.params, repeatedRows: [...repeats.values()] },
  };
}

/** Row ids used by more than one row → pointer of the first repeat. */
type RepeatedRowIds = ReadonlyMap<string, string>;

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
 * derived filter groups matching their rows. Returns the issues in document order. Throws
 * `UNKNOWN_GROUP` ({@link UnknownCuratedGroupError}) for a `curatedGroups` id the document does not define.
 */
export function lint(document: ComparisonDocument, options: LintOptions = {}): Issue[] {
  const out = new LintCollector(options.severities ?? {});
  const curated = new Set(options.curatedGroups ?? []);
  refuseUnknownCurated(document, curated);
  const { rowIndex, duplicateRowIds } = lintRows(out, document.comparisons);
  const rowIds = [...rowIndex.keys()];
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
    const rows = { list: document.comparisons, index: rowIndex, ids: rowIds, duplicates: duplicateRowIds };
    lintFilterGroup(out, rows, group, groupIndex, curated.has(group.id));
  });
  return out.issues;
}

/** Throws for the first curated id that names no filter group of the document. */
function refuseUnknownCurated(document: ComparisonDocument, curated: ReadonlySet<string>): void {
  const known = document.filters.map((group) => group.id);
  for (const id of curated) {
    if (!known.includes(id)) throw new UnknownCuratedGroupError(id, known, suggestName(id, known));
  }
}

/** The rows as the filter-group rules see them. */
interface RowLookup {
  readonly list: readonly ComparisonRow[];
  /** Row id → index of its first row. */
  readonly index: ReadonlyMap<string, number>;
  readonly ids: readonly string[];
  /** Ids shared by several rows: which row a filter value means is unknown, so no derivation advice. */
  readonly duplicates: RepeatedRowIds;
}

/**
 * Unique row ids and `compareAgainst` references naming other existing rows; answers the row index and
 * the ids used by more than one row.
 */
function lintRows(
  out: LintCollector,
  rows: readonly ComparisonRow[],
): { rowIndex: Map<string, number>; duplicateRowIds: RepeatedRowIds } {
  const duplicateRowIds = new Map<string, string>();
  const rowIndex = firstSeen(
    rows,
    (row) => row.id,
    (index, id, first) => {
      if (!duplicateRowIds.has(id)) duplicateRowIds.set(id, `/comparisons/${index}`);
      out.add(
        "DUPLICATE_ROW_ID",
        `/comparisons/${index}/id`,
        `Row id "${id}" is already used by /comparisons/${first}; row ids must be unique.`,
        { id, first: `/comparisons/${first}` },
      );
    },
  );
  const rowIds = [...rowIndex.keys()];

  rows.forEach((row, index) => {
    row.compareAgainst.forEach((target, position) => {
      const pointer = `/comparisons/${index}/compareAgainst/${position}`;
      if (target === row.id) {
        out.add("SELF_COMPARISON", pointer, `Row "${row.id}" compares against itself; remove "${target}".`, {
          id: row.id,
        });
      } else if (!rowIndex.has(target)) {
        const others = rowIds.filter((id) => id !== row.id);
        const hint = referenceHint(target, others, duplicateRowIds);
        out.add(
          "UNKNOWN_COMPARE_AGAINST",
          pointer,
          `Row "${row.id}" compares against "${target}", which is no row id of this document${hint.text}`,
          { id: row.id, reference: target, ...hint.params },
        );
      }
    });
  });

  return { rowIndex, duplicateRowIds };
}

/** One filter group: unique value ids, references to existing rows, a scalar field, derived values. */
function lintFilterGroup(
  out: LintCollector,
  rows: RowLookup,
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
      if (rows.index.has(id)) return;
      const hint = referenceHint(id, rows.ids, rows.duplicates);
      out.add(
        "UNKNOWN_ROW_REFERENCE",
        `${groupPointer}/values/${valueIndex}/comparisonIds/${position}`,
        `Filter value "${group.id}/${value.id}" lists "${id}", which is no row id of this document${hint.text}`,
        { group: group.id, value: value.id, reference: id, ...hint.params },
      );
    });
  });

  if (!Object.hasOwn(ROW_SPEC.fields, group.field)) {
    const hint = didYouMean(group.field, SCALAR_ROW_FIELDS);
    out.add(
      "UNKNOWN_FILTER_FIELD",
      `${groupPointer}/field`,
      `Filter group "${group.id}" filters on "${group.field}", which is no row field${hint.text || `; use one of ${SCALAR_ROW_FIELDS.join(", ")}.`}`,
      { group: group.id, field: group.field, allowed: SCALAR_ROW_FIELDS, ...hint.params },
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
  rows: RowLookup,
  group: ComparisonDocument["filters"][number],
  groupPointer: string,
): void {
  const field = group.field as keyof ComparisonRow;
  const rowsByValue = new Map<string, ComparisonRow[]>();
  for (const row of rows.list) {
    const key = String(row[field]);
    const list = rowsByValue.get(key);
    if (list) list.push(row);
    else rowsByValue.set(key, [row]);
  }
  const rowsById = new Map(rows.list.map((row) => [row.id, row]));
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
      if (row === undefined || rows.duplicates.has(id) || String(row[field]) === value.id) return;
      out.add(
        "FILTER_VALUE_MISMATCH",
        `${valuePointer}/comparisonIds/${position}`,
        `"${group.id}/${value.id}" lists row "${id}", whose ${group.field} is "${String(row[field])}"; list it under that value instead.`,
        { group: group.id, value: value.id, row: id, field: group.field, actual: String(row[field]) },
      );
    });
    // A row that a misspelt reference of this value already points to (UNKNOWN_ROW_REFERENCE suggests
    // it) is not reported missing a second time.
    const meant = new Set(
      value.comparisonIds.filter((id) => !rows.index.has(id)).map((id) => suggestName(id, rows.ids)),
    );
    const missing = expected
      .filter((row) => !listed.has(row.id) && !rows.duplicates.has(row.id) && !meant.has(row.id))
      .map((row) => row.id);
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
