import { asc, eq } from "drizzle-orm";
import {
  CategoryInput,
  type CategoryList,
  type CategoryView,
  isBuiltInCategory,
  unknownCategories,
} from "../domain/categories.js";
import { CATEGORIES } from "../domain/manifest.js";
import { type ParsedTemplate, parseTemplate } from "../domain/template.js";
import { FileorgError, NotFoundError } from "../errors.js";
import { PreferenceInvalidError } from "../review-errors.js";
import { customCategories } from "../store/schema.js";
import type { Queryable } from "./db.js";

/**
 * Every known category — the built-in ones, then the custom ones a person created (by name) — with the
 * target template of each custom one. Other code validates category names against this list.
 */
export async function listKnownCategories(db: Queryable): Promise<CategoryList> {
  const custom = await db.select().from(customCategories).orderBy(asc(customCategories.name));
  const builtIn: CategoryView[] = CATEGORIES.map((name) => ({
    name,
    built_in: true,
    target_template: null,
    created_at: null,
  }));
  const created: CategoryView[] = custom.map((c) => ({
    name: c.name,
    built_in: false,
    target_template: c.targetTemplate,
    created_at: new Date(c.createdAt).toISOString(),
  }));
  return { items: [...builtIn, ...created] };
}

/** The names of every known category (built-in and custom). */
export async function knownCategoryNames(db: Queryable): Promise<Set<string>> {
  const custom = await db.select({ name: customCategories.name }).from(customCategories);
  return new Set<string>([...CATEGORIES, ...custom.map((c) => c.name)]);
}

/**
 * Throws CATEGORY_UNKNOWN naming the known categories unless every one of `names` is known; `pointer` (a
 * JSON Pointer into the request) adds field-level `issues` to the details.
 */
export async function assertKnownCategories(
  db: Queryable,
  names: Iterable<string>,
  pointer?: string,
): Promise<void> {
  const wanted = [...names];
  if (wanted.length === 0) return;
  const known = await knownCategoryNames(db);
  const unknown = unknownCategories(wanted, known);
  if (unknown.length === 0) return;
  const list = [...known];
  const message = `Unknown category ${unknown.join(", ")}; use one of ${list.join(", ")} (or create it under /api/preferences/categories).`;
  throw new FileorgError("CATEGORY_UNKNOWN", message, {
    unknown,
    known: list,
    ...(pointer === undefined ? {} : { issues: [{ pointer, message }] }),
  });
}

/** The parsed target templates of the custom categories that have one. */
export async function categoryTemplates(db: Queryable): Promise<Map<string, ParsedTemplate>> {
  const custom = await db.select().from(customCategories);
  const out = new Map<string, ParsedTemplate>();
  for (const c of custom) {
    if (c.targetTemplate === null) continue;
    const parsed = parseTemplate(c.targetTemplate);
    if (parsed.ok) out.set(c.name, parsed.template);
  }
  return out;
}

/**
 * Creates a custom category. Throws PREFERENCE_INVALID (a bad name or target template), CATEGORY_BUILT_IN
 * (the name of a built-in one) or CATEGORY_EXISTS.
 */
export async function createCategory(db: Queryable, input: unknown, at: number): Promise<CategoryView> {
  const parsed = CategoryInput.safeParse(input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({
      pointer: i.path.map((p) => `/${String(p)}`).join(""),
      message: i.message,
    }));
    throw new PreferenceInvalidError("categories", issues);
  }
  const { name } = parsed.data;
  const template = parsed.data.target_template ?? null;
  if (isBuiltInCategory(name)) {
    throw new FileorgError("CATEGORY_BUILT_IN", `${name} is a built-in category.`, { name });
  }
  const inserted = await db
    .insert(customCategories)
    .values({ name, targetTemplate: template, createdAt: at })
    .onConflictDoNothing()
    .returning({ name: customCategories.name });
  if (inserted.length === 0) {
    throw new FileorgError("CATEGORY_EXISTS", `A category named ${name} already exists.`, { name });
  }
  return { name, built_in: false, target_template: template, created_at: new Date(at).toISOString() };
}

/** Deletes a custom category. Throws CATEGORY_BUILT_IN or CATEGORY_NOT_FOUND. Rows keep their category. */
export async function deleteCategory(db: Queryable, name: string): Promise<void> {
  if (isBuiltInCategory(name)) {
    throw new FileorgError("CATEGORY_BUILT_IN", `${name} is a built-in category and cannot be deleted.`, {
      name,
    });
  }
  const deleted = await db
    .delete(customCategories)
    .where(eq(customCategories.name, name))
    .returning({ name: customCategories.name });
  if (deleted.length === 0) {
    throw new NotFoundError("CATEGORY_NOT_FOUND", `No custom category named ${name}.`, { name });
  }
}
