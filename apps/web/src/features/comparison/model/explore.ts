import { type ComparisonDocument, type ComparisonRow, facets, query } from "@vetted/comparison";

/** One value of a filter group, counted as "the rows shown if this value were ticked". */
export interface ExploreValue {
  readonly ref: string;
  readonly label: string;
  readonly picked: boolean;
  readonly count: number;
}

/** One filter group of the explorer. */
export interface ExploreFacet {
  readonly id: string;
  readonly label: string;
  readonly values: readonly ExploreValue[];
}

/** What the explorer shows for a selection: the rows, the facets, and an invalid-URL error if any. */
export interface Explored {
  readonly rows: readonly ComparisonRow[];
  readonly facets: readonly ExploreFacet[];
  readonly error: unknown;
}

/** The text of a row a reader searches: its name and the sentences that describe it. */
function searchable(row: ComparisonRow): string {
  return [
    row.label,
    row.id,
    row.recommendedPack,
    ...row.bestWhen,
    ...row.avoidWhen,
    ...row.safeClaims,
    ...row.notYetSupported,
  ]
    .join("\n")
    .toLowerCase();
}

/** True when every word of `text` occurs in the row's name or description (case-insensitive). */
export function matchesText(row: ComparisonRow, text: string): boolean {
  const words = text
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length === 0) return true;
  const haystack = searchable(row);
  return words.every((w) => haystack.includes(w));
}

/**
 * The explorer's rows and facets for picked values and a text query. A value's count is what ticking it
 * would show (the picks plus that value, and the text): within a group values are OR-ed, so ticking a
 * second value of a group widens the result and its count says by how much. A ticked value counts the
 * rows shown now.
 */
export function explore(doc: ComparisonDocument, picked: readonly string[], text: string): Explored {
  const shown = (groups: readonly string[]) => query(doc, { groups }).filter((r) => matchesText(r, text));
  let rows: readonly ComparisonRow[];
  let active = picked;
  let error: unknown;
  try {
    rows = shown(picked);
  } catch (caught) {
    // An unknown value in the URL: show the text matches and offer every value from scratch.
    error = caught;
    active = [];
    rows = shown([]);
  }
  const groups = facets(doc).map((facet) => ({
    id: facet.id,
    label: facet.label,
    values: facet.values.map((v) => {
      const ref = `${facet.id}:${v.id}`;
      const isPicked = active.includes(ref);
      return {
        ref,
        label: v.label,
        picked: isPicked,
        count: isPicked ? rows.length : shown([...active, ref]).length,
      };
    }),
  }));
  return { rows, facets: groups, error };
}

/** The last segment of a path (either separator), so the page never shows the server's folders. */
export function fileLabel(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p !== "");
  return parts.at(-1) ?? path;
}
