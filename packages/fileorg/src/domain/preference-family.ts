/** The families of saved preference items (`runtime` is a single item with id `runtime`). */
export const PREFERENCE_FAMILIES = [
  "naming-templates",
  "review-rules",
  "views",
  "watch-sources",
  "runtime",
] as const;
/** A preference family. */
export type PreferenceFamily = (typeof PREFERENCE_FAMILIES)[number];
