import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ForkInput, PromoteInput, Template, TemplateExport, TemplateHistory } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, jsonBody, jsonResponse } from "./common.js";

const TemplateParams = z.object({ template_id: z.string().min(1) });

const promote = createRoute({
  method: "post",
  path: "/api/templates/promote",
  tags: ["templates"],
  summary:
    "Promote a successful run (its params become defaults, secrets dropped) or a flow to a new template",
  request: { body: jsonBody(PromoteInput) },
  responses: {
    201: jsonResponse("The new template, active, first of its family", Template),
    400: errorResponse("Invalid body (both or neither of flow_id and run_id)"),
    404: errorResponse("No such run or flow"),
    409: errorResponse("RUN_NOT_PROMOTABLE: the run failed, was cancelled or has not finished"),
    422: errorResponse("TEMPLATE_INVALID"),
  },
});
const fork = createRoute({
  method: "post",
  path: "/api/templates/{template_id}/fork-version",
  tags: ["templates"],
  summary: "Fork a new version in the template's family: draft, or active with `activate: true`",
  request: { params: TemplateParams, body: jsonBody(ForkInput) },
  responses: {
    201: jsonResponse("The new version", Template),
    404: errorResponse("No such template (or flow version)"),
    409: errorResponse("TEMPLATE_STATUS_CONFLICT: the template is archived"),
    422: errorResponse("TEMPLATE_INVALID"),
  },
});
const verb = (
  path: string,
  summary: string,
  conflict = "TEMPLATE_STATUS_CONFLICT: the template is archived",
) =>
  createRoute({
    method: "post",
    path: `/api/templates/{template_id}/${path}`,
    tags: ["templates"],
    summary,
    request: { params: TemplateParams },
    responses: {
      200: jsonResponse("The template", Template),
      404: errorResponse("No such template"),
      409: errorResponse(conflict),
    },
  });
const activate = verb(
  "activate",
  "Make this version its family's active one; the previous active version becomes superseded",
  "TEMPLATE_STATUS_CONFLICT: the template is archived",
);
const archive = verb(
  "archive",
  "Archive this version (it stops being recommended; archiving twice answers it unchanged)",
);
const recommend = verb(
  "mark-recommended",
  "Mark this version as its family's recommended one (exactly one per family, atomically)",
  "TEMPLATE_STATUS_CONFLICT: the template is archived",
);
const history = createRoute({
  method: "get",
  path: "/api/templates/{template_id}/history",
  tags: ["templates"],
  summary: "Every version of the template's family, oldest first",
  request: { params: TemplateParams },
  responses: { 200: jsonResponse("The family", TemplateHistory), 404: errorResponse("No such template") },
});
const exportRoute = createRoute({
  method: "get",
  path: "/api/templates/{template_id}/export",
  tags: ["templates"],
  summary: "The template as portable JSON (flow steps included, secret-looking defaults masked as ***)",
  request: { params: TemplateParams },
  responses: {
    200: jsonResponse("The export; POST it to /api/templates to import it", TemplateExport),
    404: errorResponse("No such template"),
  },
});

/** The template lifecycle: promote, fork-version, activate, archive, mark-recommended, history, export. */
export function createTemplateLifecycleRoutes(deps: AppDeps) {
  const { runs } = deps;
  const id = (c: { req: { valid(target: "param"): { template_id: string } } }) =>
    c.req.valid("param").template_id;
  return new OpenAPIHono<AppEnv>()
    .openapi(promote, async (c) => c.json(await runs.promoteTemplate(c.req.valid("json")), 201))
    .openapi(fork, async (c) => c.json(await runs.forkTemplateVersion(id(c), c.req.valid("json")), 201))
    .openapi(activate, async (c) => c.json(await runs.activateTemplate(id(c)), 200))
    .openapi(archive, async (c) => c.json(await runs.archiveTemplate(id(c)), 200))
    .openapi(recommend, async (c) => c.json(await runs.markRecommended(id(c)), 200))
    .openapi(history, async (c) => c.json(await runs.templateHistory(id(c)), 200))
    .openapi(exportRoute, async (c) => c.json(await runs.exportTemplate(id(c)), 200));
}
