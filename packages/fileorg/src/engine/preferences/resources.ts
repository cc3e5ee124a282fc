import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import {
  NamingTemplateItem,
  type RuntimeProblem,
  ViewItem,
  WatchSourceItem,
} from "../../domain/preferences.js";
import { ReviewRule } from "../../domain/review-rule.js";
import type { StrategyPack } from "../../domain/strategy-packs.js";
import type { FieldIssue } from "../../review-errors.js";
import type { preferences } from "../../store/review-schema.js";
import { createPathGuard, defaultAllowedRoots, type PathGuard } from "../path-guard.js";
import { type Clock, type IdGenerator, randomIds } from "../review-ids.js";

/** The item families saved as lists (`runtime` is a single object). */
export const ITEM_SCHEMAS = {
  "naming-templates": NamingTemplateItem,
  "review-rules": ReviewRule,
  views: ViewItem,
  "watch-sources": WatchSourceItem,
} as const;
/** A list-shaped preference family. */
export type ItemFamily = keyof typeof ITEM_SCHEMAS;

/** The prefix of the ids generated per family. */
export const ID_PREFIX: Record<ItemFamily, string> = {
  "naming-templates": "tpl",
  "review-rules": "rule",
  views: "view",
  "watch-sources": "watch",
};

/** What a family's item is after validation and defaults. */
export type ItemOf<F extends ItemFamily> = z.infer<(typeof ITEM_SCHEMAS)[F]>;
/** A stored item: the item with its id, version and last save time. */
export type Stored<F extends ItemFamily> = ItemOf<F> & { id: string; version: number; updated_at: string };

/** A strategy pack as listed, with whether it is the active one. */
export type StrategyPackView = StrategyPack & { active: boolean };

/** The answer of runtime validation: every problem found, each on its own. */
export interface RuntimeValidation {
  ok: boolean;
  problems: RuntimeProblem[];
}

/** What the preferences engine is built from. */
export interface PreferencesEngineOptions {
  db: LibSQLDatabase;
  clock?: Clock;
  ids?: IdGenerator;
  /**
   * The allowed roots every stored path (watch folders, output roots) must lie in (PATH_OUTSIDE_ROOT
   * otherwise). Default: the home directory and the system temp directory, like the core engine.
   */
  guard?: PathGuard;
}

/** Who saves: recorded with each version. */
export interface SaveOptions {
  actor?: string;
}

/** What every preferences module shares. */
export interface PreferencesResources {
  db: LibSQLDatabase;
  clock: Clock;
  ids: IdGenerator;
  guard: PathGuard;
}

/** The shared resources of one preferences engine. */
export function createPreferencesResources(options: PreferencesEngineOptions): PreferencesResources {
  return {
    db: options.db,
    clock: options.clock ?? Date.now,
    ids: options.ids ?? randomIds,
    guard: options.guard ?? createPathGuard(defaultAllowedRoots()),
  };
}

/** A zod error as field issues with JSON pointers. */
export function toIssues(error: z.core.$ZodError): FieldIssue[] {
  return error.issues.map((i) => ({
    pointer: i.path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""),
    message: i.message,
  }));
}

/** Epoch milliseconds as an ISO-8601 string. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A stored preference row as its item. */
export function toStored<F extends ItemFamily>(row: typeof preferences.$inferSelect): Stored<F> {
  return { ...(row.data as ItemOf<F>), id: row.id, version: row.version, updated_at: iso(row.updatedAt) };
}
