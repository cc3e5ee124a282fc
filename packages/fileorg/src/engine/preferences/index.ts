import type { PreferenceFamily } from "../../domain/preference-family.js";
import type { RuntimeSettings, RuntimeSettingsView } from "../../domain/preferences.js";
import { createCategory, deleteCategory, listKnownCategories } from "../categories.js";
import { effectiveRootsOf } from "../effective-roots.js";
import { getItem, itemHistory, listItems, type PreferencePageQuery, removeItem, saveItem } from "./items.js";
import {
  createPreferencesResources,
  type ItemFamily,
  type PreferencesEngineOptions,
  type SaveOptions,
  type Stored,
} from "./resources.js";
import {
  activeStrategyPack,
  listStrategyPacks,
  readRuntime,
  runtimeView,
  saveRuntime,
  validateRuntime,
} from "./runtime.js";
import { knownCategories } from "./view-check.js";

export {
  ITEM_SCHEMAS,
  type ItemFamily,
  type ItemOf,
  type PreferencesEngineOptions,
  type RuntimeValidation,
  type SaveOptions,
  type Stored,
  type StrategyPackView,
} from "./resources.js";

/**
 * Preferences: naming templates, review rules, views and watch sources (lists of items, upserted by id),
 * runtime settings (one object), the built-in strategy packs. Every save is validated, bumps the item's
 * `version` and records that version; secrets are stored but only ever answered masked. One module per
 * concern (`items`, `runtime`) over one shared resources object.
 */
export function createPreferencesEngine(options: PreferencesEngineOptions) {
  const res = createPreferencesResources(options);
  return {
    /** One page of a family's items, oldest first, as `{items, next_cursor}` (a bad cursor is CURSOR_INVALID). */
    list: <F extends ItemFamily>(family: F, query: PreferencePageQuery = {}) => listItems(res, family, query),
    /** One item by id; throws PREFERENCE_NOT_FOUND. */
    get: <F extends ItemFamily>(family: F, id: string): Promise<Stored<F>> => getItem(res, family, id),
    /** Validates and upserts an item by id, bumping its version (PREFERENCE_INVALID, PREFERENCE_NAME_TAKEN). */
    save: <F extends ItemFamily>(family: F, input: unknown, opts: SaveOptions = {}): Promise<Stored<F>> =>
      saveItem(res, family, input, opts),
    /** Deletes an item; throws PREFERENCE_NOT_FOUND for an unknown id. */
    remove: (family: ItemFamily, id: string, opts: SaveOptions = {}): Promise<void> =>
      removeItem(res, family, id, opts),
    /** Every version saved of an item, newest first (deletions have `data: null`). */
    history: (family: PreferenceFamily, id: string) => itemHistory(res, family, id),
    /** The runtime settings in full, API key included: for the engines, never for an answer. */
    runtimeSettings: async (): Promise<RuntimeSettings> => (await readRuntime(res.db)).settings,
    /** The runtime settings as answered: the API key masked. */
    getRuntime: async (): Promise<RuntimeSettingsView> => {
      const { settings, version, updatedAt } = await readRuntime(res.db);
      return runtimeView(
        settings,
        version,
        updatedAt,
        await effectiveRootsOf(res.guard, settings.allowed_roots),
      );
    },
    /** Merges the given fields onto the stored runtime settings and saves them. */
    saveRuntime: (input: unknown, opts: SaveOptions = {}) => saveRuntime(res, input, opts),
    /** Checks proposed runtime settings without saving; each problem is answered on its own. */
    validateRuntime: (input: unknown) => validateRuntime(res, input),
    /** Every known category: the built-in ones, then the custom ones (with their target templates). */
    listCategories: () => listKnownCategories(res.db),
    /** Creates a custom category (PREFERENCE_INVALID, CATEGORY_BUILT_IN, CATEGORY_EXISTS). */
    createCategory: (input: unknown) => createCategory(res.db, input, res.clock()),
    /** Deletes a custom category (CATEGORY_BUILT_IN, CATEGORY_NOT_FOUND); rows keep their category. */
    deleteCategory: (name: string) => deleteCategory(res.db, name),
    /** The categories a filter or a saved view may name (built-in, and custom ones where they exist). */
    knownCategories: () => knownCategories(res),
    /** The built-in strategy packs, the active one marked. */
    listStrategyPacks: () => listStrategyPacks(res),
    /** The active strategy pack (the default one if the stored id is no longer built in). */
    activeStrategyPack: () => activeStrategyPack(res),
  };
}

/** The preferences engine's verbs. */
export type PreferencesEngine = ReturnType<typeof createPreferencesEngine>;
