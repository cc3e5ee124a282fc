import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { and, asc, eq, max, ne } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { z } from "zod";
import type { PreferenceFamily } from "../domain/preference-family.js";
import {
  checkRuntimeSettings,
  DEFAULT_RUNTIME_SETTINGS,
  maskSecret,
  mergeRuntimeSettings,
  NamingTemplateItem,
  type RuntimeProblem,
  type RuntimeSettings,
  RuntimeSettingsInput,
  type RuntimeSettingsView,
  ViewItem,
  WatchSourceItem,
} from "../domain/preferences.js";
import { compileConditions, ReviewRule } from "../domain/review-rule.js";
import { findStrategyPack, STRATEGY_PACKS, type StrategyPack } from "../domain/strategy-packs.js";
import {
  type FieldIssue,
  PreferenceInvalidError,
  PreferenceNotFoundError,
  ReviewError,
} from "../review-errors.js";
import { preferences, preferenceVersions } from "../store/review-schema.js";
import { runTransaction } from "./db.js";
import { createPathGuard, defaultAllowedRoots, type PathGuard } from "./path-guard.js";
import { boundedDepth, checkStoredPaths, checkStoredRuntime } from "./preference-guards.js";
import { type Clock, type IdGenerator, randomIds } from "./review-ids.js";

/** The item families saved as lists (`runtime` is a single object). */
export const ITEM_SCHEMAS = {
  "naming-templates": NamingTemplateItem,
  "review-rules": ReviewRule,
  views: ViewItem,
  "watch-sources": WatchSourceItem,
} as const;
/** A list-shaped preference family. */
export type ItemFamily = keyof typeof ITEM_SCHEMAS;

const ID_PREFIX: Record<ItemFamily, string> = {
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

function toIssues(error: z.core.$ZodError): FieldIssue[] {
  return error.issues.map((i) => ({
    pointer: i.path.map((p) => `/${String(p).replaceAll("~", "~0").replaceAll("/", "~1")}`).join(""),
    message: i.message,
  }));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function maskRuntime(s: RuntimeSettings): Record<string, unknown> {
  return {
    ...s,
    ai_classifier:
      s.ai_classifier === null
        ? null
        : {
            ...s.ai_classifier,
            api_key: s.ai_classifier.api_key === null ? null : maskSecret(s.ai_classifier.api_key),
          },
  };
}

/**
 * Preferences: naming templates, review rules, views and watch sources (lists of items, upserted by id),
 * runtime settings (one object), the built-in strategy packs. Every save is validated, bumps the item's
 * `version` and records that version; secrets are stored but only ever answered masked.
 */
export function createPreferencesEngine(options: PreferencesEngineOptions) {
  const { db } = options;
  const clock = options.clock ?? Date.now;
  const ids = options.ids ?? randomIds;
  const guard = options.guard ?? createPathGuard(defaultAllowedRoots());

  function parseItem<F extends ItemFamily>(family: F, input: unknown): ItemOf<F> {
    const parsed = ITEM_SCHEMAS[family].safeParse(input);
    if (!parsed.success) throw new PreferenceInvalidError(family, toIssues(parsed.error));
    return parsed.data as ItemOf<F>;
  }

  function toStored<F extends ItemFamily>(row: typeof preferences.$inferSelect): Stored<F> {
    return { ...(row.data as ItemOf<F>), id: row.id, version: row.version, updated_at: iso(row.updatedAt) };
  }

  async function readRuntime(): Promise<{
    settings: RuntimeSettings;
    version: number;
    updatedAt: number | null;
  }> {
    const [row] = await db
      .select()
      .from(preferences)
      .where(and(eq(preferences.family, "runtime"), eq(preferences.id, "runtime")));
    if (row === undefined) return { settings: DEFAULT_RUNTIME_SETTINGS, version: 0, updatedAt: null };
    return {
      settings: { ...DEFAULT_RUNTIME_SETTINGS, ...(row.data as Partial<RuntimeSettings>) },
      version: row.version,
      updatedAt: row.updatedAt,
    };
  }

  function runtimeView(
    settings: RuntimeSettings,
    version: number,
    updatedAt: number | null,
  ): RuntimeSettingsView {
    const ai = settings.ai_classifier;
    return {
      ...settings,
      ai_classifier:
        ai === null
          ? null
          : {
              endpoint_url: ai.endpoint_url,
              model: ai.model,
              api_key: ai.api_key === null ? null : maskSecret(ai.api_key),
              api_key_set: ai.api_key !== null,
            },
      version,
      updated_at: updatedAt === null ? null : iso(updatedAt),
    };
  }

  async function checkOnDisk(s: RuntimeSettings): Promise<RuntimeProblem[]> {
    const problems: RuntimeProblem[] = [];
    const checkDir = async (path: string, pointer: string, mayBeMissing: boolean) => {
      try {
        const st = await stat(path);
        if (!st.isDirectory()) {
          problems.push({ pointer, code: "NOT_A_DIRECTORY", message: `${path} is not a directory` });
          return;
        }
        await access(path, constants.W_OK).catch(() =>
          problems.push({ pointer, code: "NOT_WRITABLE", message: `${path} is not writable by the server` }),
        );
      } catch {
        if (mayBeMissing) {
          // A missing output root is fine if it can be created.
          await access(dirname(path), constants.W_OK).catch(() =>
            problems.push({
              pointer,
              code: "NOT_FOUND",
              message: `${path} does not exist and cannot be created`,
            }),
          );
        } else {
          problems.push({ pointer, code: "NOT_FOUND", message: `${path} does not exist` });
        }
      }
    };
    await Promise.all(s.allowed_roots.map((root, i) => checkDir(root, `/allowed_roots/${i}`, false)));
    if (s.default_output_root !== null) await checkDir(s.default_output_root, "/default_output_root", true);
    return problems.sort((a, b) => a.pointer.localeCompare(b.pointer));
  }

  return {
    /** Every item of a family, oldest first, as `{items}`. */
    async list<F extends ItemFamily>(family: F): Promise<{ items: Stored<F>[] }> {
      const rows = await db
        .select()
        .from(preferences)
        .where(eq(preferences.family, family))
        .orderBy(asc(preferences.createdAt), asc(preferences.id));
      return { items: rows.map((r) => toStored<F>(r)) };
    },

    /** One item by id; throws PREFERENCE_NOT_FOUND. */
    async get<F extends ItemFamily>(family: F, id: string): Promise<Stored<F>> {
      const [row] = await db
        .select()
        .from(preferences)
        .where(and(eq(preferences.family, family), eq(preferences.id, id)));
      if (row === undefined) throw new PreferenceNotFoundError(family, id);
      return toStored<F>(row);
    },

    /**
     * Validates and upserts an item by id (generated when absent), bumping its version. Throws
     * PREFERENCE_INVALID with every offending field, or PREFERENCE_NAME_TAKEN when another item has the name.
     */
    async save<F extends ItemFamily>(family: F, input: unknown, opts: SaveOptions = {}): Promise<Stored<F>> {
      const item = parseItem(family, boundedDepth(input, family));
      // A user regex runs in linear time or is refused (REGEX_INVALID); a stored path lies inside the roots.
      if ("conditions" in item) compileConditions(item.conditions);
      await checkStoredPaths(guard, item);
      const id = item.id ?? ids(ID_PREFIX[family]);
      const now = clock();
      const data = { ...item, id } as Record<string, unknown>;
      const row = await runTransaction(db, async (tx) => {
        const [clash] = await tx
          .select({ id: preferences.id })
          .from(preferences)
          .where(
            and(eq(preferences.family, family), eq(preferences.name, item.name), ne(preferences.id, id)),
          );
        if (clash !== undefined) {
          throw new ReviewError(
            "PREFERENCE_NAME_TAKEN",
            `Another ${family} item (${clash.id}) is already named ${JSON.stringify(item.name)}.`,
            { issues: [{ pointer: "/name", message: "this name is taken" }], id: clash.id },
          );
        }
        const [existing] = await tx
          .select({ version: preferences.version, createdAt: preferences.createdAt })
          .from(preferences)
          .where(and(eq(preferences.family, family), eq(preferences.id, id)));
        // A deleted item's history stays: saving its id again continues after its last recorded version.
        const [history] =
          existing === undefined
            ? await tx
                .select({ last: max(preferenceVersions.version) })
                .from(preferenceVersions)
                .where(and(eq(preferenceVersions.family, family), eq(preferenceVersions.id, id)))
            : [];
        const version = (existing?.version ?? history?.last ?? 0) + 1;
        const values = {
          family,
          id,
          name: item.name,
          version,
          data,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        };
        await tx
          .insert(preferences)
          .values(values)
          .onConflictDoUpdate({
            target: [preferences.family, preferences.id],
            set: { name: values.name, version, data, updatedAt: now },
          });
        await tx
          .insert(preferenceVersions)
          .values({ family, id, version, data, savedAt: now, actor: opts.actor ?? "local" });
        return values;
      });
      return toStored<F>(row);
    },

    /** Deletes an item; throws PREFERENCE_NOT_FOUND for an unknown id. */
    async remove(family: ItemFamily, id: string, opts: SaveOptions = {}): Promise<void> {
      await runTransaction(db, async (tx) => {
        const [existing] = await tx
          .delete(preferences)
          .where(and(eq(preferences.family, family), eq(preferences.id, id)))
          .returning({ version: preferences.version });
        if (existing === undefined) throw new PreferenceNotFoundError(family, id);
        await tx.insert(preferenceVersions).values({
          family,
          id,
          version: existing.version + 1,
          data: null,
          savedAt: clock(),
          actor: opts.actor ?? "local",
        });
      });
    },

    /** Every version saved of an item, newest first (deletions have `data: null`). */
    async history(family: PreferenceFamily, id: string) {
      const rows = await db
        .select()
        .from(preferenceVersions)
        .where(and(eq(preferenceVersions.family, family), eq(preferenceVersions.id, id)));
      return rows
        .sort((a, b) => b.version - a.version)
        .map((r) => ({ version: r.version, data: r.data, saved_at: iso(r.savedAt), actor: r.actor }));
    },

    /** The runtime settings in full, API key included: for the engines, never for an answer. */
    async runtimeSettings(): Promise<RuntimeSettings> {
      return (await readRuntime()).settings;
    },

    /** The runtime settings as answered: the API key masked. */
    async getRuntime(): Promise<RuntimeSettingsView> {
      const { settings, version, updatedAt } = await readRuntime();
      return runtimeView(settings, version, updatedAt);
    },

    /**
     * Merges the given fields onto the stored runtime settings and saves them (PREFERENCE_INVALID on a bad
     * field). An `api_key` left out, or sent back exactly as masked, keeps the stored key.
     */
    async saveRuntime(input: unknown, opts: SaveOptions = {}): Promise<RuntimeSettingsView> {
      const parsed = RuntimeSettingsInput.safeParse(boundedDepth(input, "runtime"));
      if (!parsed.success) throw new PreferenceInvalidError("runtime", toIssues(parsed.error));
      await checkStoredRuntime(guard, parsed.data);
      const now = clock();
      const { settings, version } = await runTransaction(db, async (tx) => {
        const [row] = await tx
          .select()
          .from(preferences)
          .where(and(eq(preferences.family, "runtime"), eq(preferences.id, "runtime")));
        const current =
          row === undefined
            ? DEFAULT_RUNTIME_SETTINGS
            : { ...DEFAULT_RUNTIME_SETTINGS, ...(row.data as Partial<RuntimeSettings>) };
        const next = mergeRuntimeSettings(current, parsed.data);
        const v = (row?.version ?? 0) + 1;
        const data = next as unknown as Record<string, unknown>;
        await tx
          .insert(preferences)
          .values({
            family: "runtime",
            id: "runtime",
            name: "runtime",
            version: v,
            data,
            createdAt: row?.createdAt ?? now,
            updatedAt: now,
          })
          .onConflictDoUpdate({
            target: [preferences.family, preferences.id],
            set: { version: v, data, updatedAt: now },
          });
        await tx.insert(preferenceVersions).values({
          family: "runtime",
          id: "runtime",
          version: v,
          data: maskRuntime(next),
          savedAt: now,
          actor: opts.actor ?? "local",
        });
        return { settings: next, version: v };
      });
      return runtimeView(settings, version, now);
    },

    /**
     * Checks proposed runtime settings without saving: the shape of every field, limits, the template,
     * and on disk that roots exist and are writable. Each problem is answered on its own.
     */
    async validateRuntime(input: unknown): Promise<RuntimeValidation> {
      const parsed = RuntimeSettingsInput.safeParse(input);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => ({
          pointer: toIssues({ issues: [i] } as z.core.$ZodError)[0]?.pointer ?? "",
          code: "INVALID",
          message: i.message,
        }));
        return { ok: false, problems };
      }
      const merged = mergeRuntimeSettings((await readRuntime()).settings, parsed.data);
      const problems = [...checkRuntimeSettings(merged), ...(await checkOnDisk(merged))];
      return { ok: problems.length === 0, problems };
    },

    /** The built-in strategy packs, the active one marked. */
    async listStrategyPacks(): Promise<{ items: StrategyPackView[] }> {
      const active = (await readRuntime()).settings.active_strategy_pack;
      return { items: STRATEGY_PACKS.map((p) => ({ ...p, active: p.id === active })) };
    },

    /** The active strategy pack (the default one if the stored id is no longer built in). */
    async activeStrategyPack(): Promise<StrategyPack> {
      const active = (await readRuntime()).settings.active_strategy_pack;
      return findStrategyPack(active) ?? (STRATEGY_PACKS[0] as StrategyPack);
    },
  };
}

/** The preferences engine's verbs. */
export type PreferencesEngine = ReturnType<typeof createPreferencesEngine>;
