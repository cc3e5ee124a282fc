import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Flow, FlowInput, FlowPatch } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../app.js";
import { errorResponse, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const FlowParams = z.object({ flow_id: z.string().min(1) });
const FlowPage = pageOf(Flow, "FlowPage");

const create = createRoute({
  method: "post",
  path: "/api/flows",
  tags: ["flows"],
  summary: "Create a flow (version 1)",
  request: { body: jsonBody(FlowInput) },
  responses: { 201: jsonResponse("The flow", Flow), 400: errorResponse("Invalid flow") },
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
    409: errorResponse("VERSION_MISMATCH: expected_version is stale"),
  },
});

/** `POST/GET /api/flows`, `GET/PATCH /api/flows/{flow_id}`. */
export function createFlowRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => c.json(await runs.createFlow(c.req.valid("json")), 201))
    .openapi(list, async (c) => c.json(await runs.listFlows(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await runs.getFlow(c.req.valid("param").flow_id), 200))
    .openapi(patch, async (c) =>
      c.json(await runs.updateFlow(c.req.valid("param").flow_id, c.req.valid("json")), 200),
    );
}
