import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  type ItemFamily,
  NamingTemplateItem,
  ReviewRule,
  RuntimeSettingsInput,
  RuntimeSettingsView,
  ViewItem,
  WatchSourceItem,
} from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { bodyOf, errorResponses as errors, jsonResponse, PageQuery } from "./common.js";

const StoredFields = {
  id: z.string(),
  version: z.number().int().meta({ description: "Bumped on every save" }),
  updated_at: z.string().meta({ description: "ISO 8601 time of the last save" }),
};

const FAMILY_SCHEMAS = {
  "naming-templates": { input: NamingTemplateItem, stored: NamingTemplateItem.extend(StoredFields) },
  "review-rules": { input: ReviewRule, stored: ReviewRule.extend(StoredFields) },
  views: { input: ViewItem, stored: ViewItem.extend(StoredFields) },
  "watch-sources": { input: WatchSourceItem, stored: WatchSourceItem.extend(StoredFields) },
} as const;

const DeleteQuery = z.object({ id: z.string().min(1).meta({ description: "The id of the item to delete" }) });

/** GET (list), POST (upsert) and DELETE (`?id=`) for one preference family. */
function itemRoutes<F extends ItemFamily>(deps: Pick<AppDeps, "preferences">, family: F, summary: string) {
  const { input, stored } = FAMILY_SCHEMAS[family];
  const path = `/api/preferences/${family}`;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path,
        tags: ["preferences"],
        summary: `List ${summary}`,
        request: { query: PageQuery },
        responses: {
          200: jsonResponse(
            "One page of items, oldest first",
            z.object({ items: z.array(stored), next_cursor: z.string().nullable() }),
          ),
          ...errors(400),
        },
      }),
      async (c) => c.json(await deps.preferences.list(family, c.req.valid("query")), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path,
        tags: ["preferences"],
        summary: `Save one of the ${summary} (upsert by id; id generated when absent)`,
        request: bodyOf(input),
        responses: {
          200: jsonResponse("The stored item", stored),
          // 403 PATH_OUTSIDE_ROOT (a stored path outside the allowed roots), 422 REGEX_INVALID
          ...errors(400, 403, 409, 422),
        },
      }),
      async (c) =>
        c.json(await deps.preferences.save(family, c.req.valid("json"), { actor: c.get("actor") }), 200),
    )
    .openapi(
      createRoute({
        method: "delete",
        path,
        tags: ["preferences"],
        summary: `Delete one of the ${summary}`,
        request: { query: DeleteQuery },
        responses: { 204: { description: "Deleted" }, ...errors(400, 404) },
      }),
      async (c) => {
        await deps.preferences.remove(family, c.req.valid("query").id, { actor: c.get("actor") });
        return c.body(null, 204);
      },
    );
}

const RuntimeValidation = z
  .object({
    ok: z.boolean(),
    problems: z.array(
      z.object({
        pointer: z.string().meta({ description: "JSON Pointer into the proposed settings" }),
        code: z.string(),
        message: z.string(),
      }),
    ),
  })
  .meta({ id: "RuntimeValidation" });

const StrategyPackList = z
  .object({
    items: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        categories: z.array(z.string()),
        naming_template: z.string(),
        confidence_threshold: z.number(),
        default_rules: z.array(ReviewRule),
        active: z.boolean(),
      }),
    ),
  })
  .meta({ id: "StrategyPackList" });

/** `/api/preferences/...`: naming templates, review rules, views, watch sources, runtime, strategy packs. */
export function createPreferencesRoutes(deps: Pick<AppDeps, "preferences">) {
  return new OpenAPIHono<AppEnv>()
    .route("/", itemRoutes(deps, "naming-templates", "naming templates"))
    .route("/", itemRoutes(deps, "review-rules", "review rules"))
    .route("/", itemRoutes(deps, "views", "saved views"))
    .route("/", itemRoutes(deps, "watch-sources", "watch sources"))
    .openapi(
      createRoute({
        method: "get",
        path: "/api/preferences/runtime",
        tags: ["preferences"],
        summary: "Runtime settings (the classifier API key masked)",
        responses: { 200: jsonResponse("The settings", RuntimeSettingsView) },
      }),
      async (c) => c.json(await deps.preferences.getRuntime(), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/preferences/runtime",
        tags: ["preferences"],
        summary:
          "Save runtime settings (given fields replace stored ones; an absent or masked api_key keeps it)",
        request: bodyOf(RuntimeSettingsInput),
        responses: {
          200: jsonResponse("The stored settings", RuntimeSettingsView),
          ...errors(400, 403),
        },
      }),
      async (c) =>
        c.json(await deps.preferences.saveRuntime(c.req.valid("json"), { actor: c.get("actor") }), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/preferences/runtime/validate",
        tags: ["preferences"],
        summary: "Check proposed runtime settings without saving; every problem answered separately",
        request: bodyOf(z.record(z.string(), z.unknown())),
        responses: {
          200: jsonResponse("The problems found (none when ok)", RuntimeValidation),
          ...errors(400),
        },
      }),
      async (c) => c.json(await deps.preferences.validateRuntime(c.req.valid("json")), 200),
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/preferences/strategy-packs",
        tags: ["preferences"],
        summary: "Built-in strategy packs (read-only); the active one is marked",
        responses: { 200: jsonResponse("Every pack", StrategyPackList) },
      }),
      async (c) => c.json(await deps.preferences.listStrategyPacks(), 200),
    );
}
