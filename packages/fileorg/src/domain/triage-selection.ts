/**
 * Which rows a batch triage acts on must be said, never assumed: explicit `row_ids`, a filter that narrows
 * the manifest, or `all: true` for every row. An empty filter (`{}`) alone used to approve every row.
 */

/** The selection fields of a batch triage request. */
export interface TriageSelection {
  row_ids?: readonly string[] | undefined;
  filter?: Readonly<Record<string, unknown>> | undefined;
  all?: true | undefined;
}

/** Whether a filter names at least one field. */
export function narrows(filter: Readonly<Record<string, unknown>> | undefined): boolean {
  return filter !== undefined && Object.values(filter).some((v) => v !== undefined);
}

/** The problems with a selection: none of the three ways, or more than one of them. */
export function selectionIssues(r: TriageSelection): Array<{ path: string[]; message: string }> {
  const ways = [r.row_ids !== undefined, narrows(r.filter), r.all === true].filter(Boolean).length;
  if (ways === 1) return [];
  if (ways === 0) {
    const empty = r.filter !== undefined;
    return [
      {
        path: empty ? ["filter"] : ["row_ids"],
        message: `${empty ? "an empty filter selects nothing on its own; " : ""}give row_ids, a filter with at least one field, or all: true to act on every row`,
      },
    ];
  }
  return [
    {
      path: ["all"],
      message: "give only one of row_ids, a filter, or all: true",
    },
  ];
}
