/** The preferences engine's modules live in `./preferences/`; this path keeps the names the package imports. */
export {
  createPreferencesEngine,
  ITEM_SCHEMAS,
  type ItemFamily,
  type ItemOf,
  type PreferencePageQuery,
  type PreferencesEngine,
  type PreferencesEngineOptions,
  preferenceListName,
  type RuntimeValidation,
  type SaveOptions,
  type Stored,
  type StrategyPackView,
} from "./preferences/index.js";
