import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Flow, FlowInput, FlowPatch } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const FlowParams = z.object({ flow_id: z.string().min(1) });
/** `POST /api/flows`: a flow (`name`, `steps`), or `{session_id, name?}` promoting a session's flow draft. */
const CreateFlowBody = FlowInput.extend({
  name: FlowInput.shape.name.optional(),
  steps: FlowInput.shape.steps.optional(),
  session_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: "Promote this session's flow draft" }),
})
  .superRefine((body, ctx) => {
    if (body.session_id !== undefined) {
      if (body.steps !== undefined) {
        ctx.addIssue({ code: "custom", path: ["steps"], message: "send steps or session_id, not both" });
      }
      return;
    }
    for (const key of ["name", "steps"] as const) {
      if (body[key] === undefined) {
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is required (or send session_id)` });
      }
    }
  })
  .meta({ id: "CreateFlowBody" });
const FlowPage = pageOf(Flow, "FlowPage");

const create = createRoute({
  method: "post",
  path: "/api/flows",
  tags: ["flows"],
  summary: "Create a flow (version 1), or promote a session's flow draft with {session_id}",
  request: { body: jsonBody(CreateFlowBody) },
  responses: {
    201: jsonResponse("The flow", Flow),
    400: errorResponse("Invalid flow"),
    404: errorResponse("SESSION_NOT_FOUND"),
    422: errorResponse("FLOW_INVALID"),
  },
});
const list = createRoute({
  method: "get",
  path: "/api/flows",
  tags: ["flows"],
  summary: "List flows, newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of flows", FlowPage) },
});
const get = createRoute({
  method: "get",
  path: "/api/flows/{flow_id}",
  tags: ["flows"],
  summary: "Get a flow at its latest version",
  request: { params: FlowParams },
  responses: { 200: jsonResponse("The flow", Flow), 404: errorResponse("No such flow") },
});
const patch = createRoute({
  method: "patch",
  path: "/api/flows/{flow_id}",
  tags: ["flows"],
  summary: "Change a flow; bumps its version",
  request: { params: FlowParams, body: jsonBody(FlowPatch) },
  responses: {
    200: jsonResponse("The flow at its new version", Flow),
    404: errorResponse("No such flow"),
    409: errorResponse("VERSION_CONFLICT: expected_version is stale"),
  },
});

/** `POST/GET /api/flows`, `GET/PATCH /api/flows/{flow_id}`. */
export function createFlowRoutes(deps: AppDeps) {
  const { runs, sessions } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => {
      const { session_id, name, steps } = c.req.valid("json");
      if (session_id !== undefined) {
        return c.json(
          await sessions.promoteDraft({ session_id, ...(name === undefined ? {} : { name }) }),
          201,
        );
      }
      return c.json(await runs.createFlow({ name: name ?? "", steps: steps ?? [] }), 201);
    })
    .openapi(list, async (c) => c.json(await runs.listFlows(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await runs.getFlow(c.req.valid("param").flow_id), 200))
    .openapi(patch, async (c) =>
      c.json(await runs.updateFlow(c.req.valid("param").flow_id, c.req.valid("json")), 200),
    );
}
