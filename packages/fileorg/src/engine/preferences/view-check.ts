import type { ViewItem } from "../../domain/preferences.js";
import { checkViewFilter } from "../../domain/row-filter.js";
import { PreferenceInvalidError } from "../../review-errors.js";
import { knownCategoryNames } from "../categories.js";
import type { PreferencesResources } from "./resources.js";

/**
 * The categories a person may name in a filter or a saved view: the built-in ones and the custom ones saved
 * in preferences (the one place that decides what "known" means).
 */
export async function knownCategories(res: PreferencesResources): Promise<readonly string[]> {
  return [...(await knownCategoryNames(res.db))];
}

/**
 * Refuses a saved view whose filter names an unknown category (PREFERENCE_INVALID, the known ones named):
 * the checks a view needs beyond its shape, which the schema already refuses unknown fields, buckets,
 * statuses, reasons and sort fields by.
 */
export async function assertViewKnown(res: PreferencesResources, view: ViewItem): Promise<void> {
  const issues = checkViewFilter(view, await knownCategories(res));
  if (issues.length > 0) throw new PreferenceInvalidError("views", issues);
}
