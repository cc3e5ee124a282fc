import { z } from "zod";
import { CATEGORIES, CategoryName } from "./manifest.js";
import { NamingTemplateString } from "./preferences.js";
import type { ReviewRule } from "./review-rule.js";

/** `POST /api/preferences/categories`: a custom category and, optionally, the template of its targets. */
export const CategoryInput = z
  .object({
    name: CategoryName,
    target_template: NamingTemplateString.nullable()
      .optional()
      .meta({ description: "Naming template of the category's targets (else the job's template)" }),
  })
  .strict()
  .meta({ id: "FileorgCategoryInput" });
/** A custom category as sent. */
export type CategoryInput = z.infer<typeof CategoryInput>;

/** A known category: built in, or created by a person (with its optional target template). */
export const CategoryView = z
  .object({
    name: z.string(),
    built_in: z.boolean(),
    target_template: z.string().nullable(),
    created_at: z.string().nullable().meta({ description: "ISO 8601; null for built-in categories" }),
  })
  .meta({ id: "FileorgCategory" });
/** A known category. */
export type CategoryView = z.infer<typeof CategoryView>;

/** Every known category: the built-in ones first, then the custom ones by name. */
export const CategoryList = z.object({ items: z.array(CategoryView) }).meta({ id: "FileorgCategoryList" });
/** Every known category. */
export type CategoryList = z.infer<typeof CategoryList>;

/** The categories a rule names: the ones it sets and the ones its conditions test. */
export function categoriesOfRule(rule: Pick<ReviewRule, "actions" | "conditions">): string[] {
  const out: string[] = [];
  for (const a of rule.actions) if (a.type === "set_category") out.push(a.category);
  const { all = [], any = [], none = [] } = rule.conditions;
  for (const c of [...all, ...any, ...none]) if (c.field === "category") out.push(...c.in);
  return out;
}

/** Whether `name` is one of the built-in categories. */
export function isBuiltInCategory(name: string): boolean {
  return (CATEGORIES as readonly string[]).includes(name);
}

/** The names among `names` that are not in `known`, each once, in the order given. */
export function unknownCategories(names: Iterable<string>, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const name of names) if (!known.has(name) && !out.includes(name)) out.push(name);
  return out;
}
