import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { CategoryInput, CategoryList, CategoryName, CategoryView } from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { bodyOf, errorResponses as errors, jsonResponse } from "./common.js";

const TAG = ["preferences"];
const PATH = "/api/preferences/categories";
const DeleteQuery = z.object({ name: CategoryName.meta({ description: "The custom category to delete" }) });

/**
 * `/api/preferences/categories`: every known category (built-in, then custom), creating a custom one (a
 * name and an optional target folder template) and deleting it. Triage, rules and row edits accept any
 * known category; an unknown one is 400 `CATEGORY_UNKNOWN` naming the known ones.
 */
export function createCategoryRoutes(deps: Pick<AppDeps, "preferences">) {
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: PATH,
        tags: TAG,
        summary: "Every known category: the built-in ones, then the custom ones",
        responses: { 200: jsonResponse("The categories", CategoryList) },
      }),
      async (c) => c.json(await deps.preferences.listCategories(), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: PATH,
        tags: TAG,
        summary: "Create a custom category (409 CATEGORY_EXISTS, CATEGORY_BUILT_IN)",
        request: bodyOf(CategoryInput),
        responses: { 201: jsonResponse("The created category", CategoryView), ...errors(400, 409) },
      }),
      async (c) => c.json(await deps.preferences.createCategory(c.req.valid("json")), 201),
    )
    .openapi(
      createRoute({
        method: "delete",
        path: PATH,
        tags: TAG,
        summary: "Delete a custom category (rows filed under it keep it)",
        request: { query: DeleteQuery },
        responses: { 204: { description: "Deleted" }, ...errors(400, 404, 409) },
      }),
      async (c) => {
        await deps.preferences.deleteCategory(c.req.valid("query").name);
        return c.body(null, 204);
      },
    );
}
