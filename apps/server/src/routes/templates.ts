import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { isTemplateExport, Template, TemplateExport, TemplateInput, TemplatePatch } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const TemplateParams = z.object({ template_id: z.string().min(1) });
const TemplatePage = pageOf(Template, "TemplatePage");

const create = createRoute({
  method: "post",
  path: "/api/templates",
  tags: ["templates"],
  summary: "Create a template over a flow, or import an export (a body with `format`)",
  request: { body: jsonBody(z.union([TemplateExport, TemplateInput])) },
  responses: {
    201: jsonResponse("The template", Template),
    400: errorResponse("Invalid template"),
    404: errorResponse("No such flow (or flow version)"),
  },
});
const list = createRoute({
  method: "get",
  path: "/api/templates",
  tags: ["templates"],
  summary: "List templates, newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of templates", TemplatePage) },
});
const get = createRoute({
  method: "get",
  path: "/api/templates/{template_id}",
  tags: ["templates"],
  summary: "Get a template",
  request: { params: TemplateParams },
  responses: { 200: jsonResponse("The template", Template), 404: errorResponse("No such template") },
});
const patch = createRoute({
  method: "patch",
  path: "/api/templates/{template_id}",
  tags: ["templates"],
  summary: "Change a template; bumps its version",
  request: { params: TemplateParams, body: jsonBody(TemplatePatch) },
  responses: {
    200: jsonResponse("The template at its new version", Template),
    404: errorResponse("No such template"),
    409: errorResponse("VERSION_CONFLICT: expected_version is stale"),
    422: errorResponse("TEMPLATE_INVALID"),
  },
});

/** `POST/GET /api/templates`, `GET/PATCH /api/templates/{template_id}`. */
export function createTemplateRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => {
      const body = c.req.valid("json");
      const created = isTemplateExport(body)
        ? await runs.importTemplate(body)
        : await runs.createTemplate(body);
      return c.json(created, 201);
    })
    .openapi(list, async (c) => c.json(await runs.listTemplates(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await runs.getTemplate(c.req.valid("param").template_id), 200))
    .openapi(patch, async (c) =>
      c.json(await runs.updateTemplate(c.req.valid("param").template_id, c.req.valid("json")), 200),
    );
}
