import { encodeCursor, runTransaction, type Tx, toKeysetPage } from "@vetted/store";
import { and, asc, eq, gt, max, ne, or, type SQL } from "drizzle-orm";
import { categoriesOfRule } from "../../domain/categories.js";
import type { PreferenceFamily } from "../../domain/preference-family.js";
import { compileConditions } from "../../domain/review-rule.js";
import { PreferenceInvalidError, PreferenceNotFoundError, ReviewError } from "../../review-errors.js";
import { preferences, preferenceVersions } from "../../store/review-schema.js";
import { assertKnownCategories } from "../categories.js";
import { boundedDepth, checkStoredPaths } from "../preference-guards.js";
import { cursorKey, pageLimit } from "../query-kit.js";
import {
  ID_PREFIX,
  ITEM_SCHEMAS,
  type ItemFamily,
  type ItemOf,
  iso,
  type PreferencesResources,
  type SaveOptions,
  type Stored,
  toIssues,
  toStored,
} from "./resources.js";
import { assertViewKnown } from "./view-check.js";

/** Paging of a preference list. */
export interface PreferencePageQuery {
  cursor?: string | undefined;
  limit?: number | undefined;
}

/** The list name a family's cursor is bound to (a cursor of another family is CURSOR_INVALID). */
function preferenceListName(family: ItemFamily): string {
  return `fileorg.preferences.${family}`;
}

function parseItem<F extends ItemFamily>(family: F, input: unknown): ItemOf<F> {
  const parsed = ITEM_SCHEMAS[family].safeParse(input);
  if (!parsed.success) throw new PreferenceInvalidError(family, toIssues(parsed.error));
  return parsed.data as ItemOf<F>;
}

/**
 * One page of a family's items, oldest first. A malformed cursor, or one of another list, throws
 * CURSOR_INVALID; without a `limit` a page holds the one maximum of every list.
 */
export async function listItems<F extends ItemFamily>(
  res: PreferencesResources,
  family: F,
  query: PreferencePageQuery = {},
): Promise<{ items: Stored<F>[]; next_cursor: string | null }> {
  const list = preferenceListName(family);
  const after = cursorKey(query.cursor, list, ["integer", "string"]);
  const limit = pageLimit(query.limit, Number.POSITIVE_INFINITY);
  const where: Array<SQL | undefined> = [eq(preferences.family, family)];
  if (after !== undefined) {
    const [createdAt, id] = [Number(after[0]), String(after[1])];
    where.push(
      or(
        gt(preferences.createdAt, createdAt),
        and(eq(preferences.createdAt, createdAt), gt(preferences.id, id)),
      ),
    );
  }
  const found = await res.db
    .select()
    .from(preferences)
    .where(and(...where))
    .orderBy(asc(preferences.createdAt), asc(preferences.id))
    .limit(limit + 1);
  return toKeysetPage(
    found,
    limit,
    (r) => toStored<F>(r),
    (last) => encodeCursor(list, [last.createdAt, last.id]),
  );
}

/** One item by id; throws PREFERENCE_NOT_FOUND. */
export async function getItem<F extends ItemFamily>(
  res: PreferencesResources,
  family: F,
  id: string,
): Promise<Stored<F>> {
  const [row] = await res.db
    .select()
    .from(preferences)
    .where(and(eq(preferences.family, family), eq(preferences.id, id)));
  if (row === undefined) throw new PreferenceNotFoundError(family, id);
  return toStored<F>(row);
}

async function assertNameFree(tx: Tx, family: ItemFamily, name: string, id: string): Promise<void> {
  const [clash] = await tx
    .select({ id: preferences.id })
    .from(preferences)
    .where(and(eq(preferences.family, family), eq(preferences.name, name), ne(preferences.id, id)));
  if (clash !== undefined) {
    throw new ReviewError(
      "PREFERENCE_NAME_TAKEN",
      `Another ${family} item (${clash.id}) is already named ${JSON.stringify(name)}.`,
      { issues: [{ pointer: "/name", message: "this name is taken" }], id: clash.id },
    );
  }
}

/** The version a save of `id` gets: after the stored one, or after a deleted item's last recorded one. */
async function nextVersion(tx: Tx, family: ItemFamily, id: string) {
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
  return { version: (existing?.version ?? history?.last ?? 0) + 1, createdAt: existing?.createdAt };
}

/**
 * Validates and upserts an item by id (generated when absent), bumping its version. Throws
 * PREFERENCE_INVALID with every offending field, or PREFERENCE_NAME_TAKEN when another item has the name.
 */
export async function saveItem<F extends ItemFamily>(
  res: PreferencesResources,
  family: F,
  input: unknown,
  opts: SaveOptions = {},
): Promise<Stored<F>> {
  const item = parseItem(family, boundedDepth(input, family));
  // A user regex runs in linear time or is refused (REGEX_INVALID); a stored path lies inside the roots.
  if ("conditions" in item) {
    compileConditions(item.conditions);
    // A rule may set or test any known category, built in or custom (CATEGORY_UNKNOWN otherwise).
    await assertKnownCategories(res.db, categoriesOfRule(item));
  }
  if (family === "views") await assertViewKnown(res, item as ItemOf<"views">);
  await checkStoredPaths(res.guard, item);
  const id = item.id ?? res.ids(ID_PREFIX[family]);
  const now = res.clock();
  const data = { ...item, id } as Record<string, unknown>;
  const row = await runTransaction(res.db, async (tx) => {
    await assertNameFree(tx, family, item.name, id);
    const { version, createdAt } = await nextVersion(tx, family, id);
    const values = {
      family,
      id,
      name: item.name,
      version,
      data,
      createdAt: createdAt ?? now,
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
}

/** Deletes an item; throws PREFERENCE_NOT_FOUND for an unknown id. */
export async function removeItem(
  res: PreferencesResources,
  family: ItemFamily,
  id: string,
  opts: SaveOptions = {},
): Promise<void> {
  await runTransaction(res.db, async (tx) => {
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
      savedAt: res.clock(),
      actor: opts.actor ?? "local",
    });
  });
}

/** Every version saved of an item, newest first (deletions have `data: null`). */
export async function itemHistory(res: PreferencesResources, family: PreferenceFamily, id: string) {
  const rows = await res.db
    .select()
    .from(preferenceVersions)
    .where(and(eq(preferenceVersions.family, family), eq(preferenceVersions.id, id)));
  return rows
    .sort((a, b) => b.version - a.version)
    .map((r) => ({ version: r.version, data: r.data, saved_at: iso(r.savedAt), actor: r.actor }));
}
