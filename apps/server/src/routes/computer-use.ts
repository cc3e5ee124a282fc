import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  CuAction,
  CuConfirmInput,
  CuEvidence,
  CuExecution,
  CuPreviewInput,
  CuSession,
  CuSessionInput,
} from "@vetted/runs/computer-use";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, errorResponses, idParam, jsonBody, jsonResponse } from "./common.js";

const CuParams = z.object({ cu_session_id: idParam("cu_session_id") });
const ActionParams = CuParams.extend({ action_id: idParam("action_id") });
const EvidenceParams = CuParams.extend({ evidence_id: idParam("evidence_id") });
const EvidencePage = z
  .object({ items: z.array(CuEvidence), next_cursor: z.null() })
  .meta({ id: "CuEvidencePage", description: "Every piece of evidence of the session, oldest first" });
const BASE = "/api/computer-use/sessions";
const unavailable = {
  503: errorResponse("BROWSER_UNAVAILABLE: no browser (the message says how to install one)"),
};

const create = createRoute({
  method: "post",
  path: BASE,
  tags: ["computer-use"],
  summary: "Start a computer-use session for an instruction (in a live session's page, or a page of its own)",
  request: { body: jsonBody(CuSessionInput) },
  responses: { 201: jsonResponse("The session", CuSession), ...errorResponses(400, 404, 409, 422) },
});
const get = createRoute({
  method: "get",
  path: `${BASE}/{cu_session_id}`,
  tags: ["computer-use"],
  summary: "Get a computer-use session",
  request: { params: CuParams },
  responses: { 200: jsonResponse("The session", CuSession), ...errorResponses(404) },
});
const preview = createRoute({
  method: "post",
  path: `${BASE}/{cu_session_id}/preview`,
  tags: ["computer-use"],
  summary: "Propose the next action on the live page, with its risk level (nothing is done yet)",
  request: { params: CuParams, body: jsonBody(CuPreviewInput) },
  responses: {
    200: jsonResponse("The proposed action", CuAction),
    ...errorResponses(400, 404, 409, 422),
    413: errorResponse("SCREENSHOT_TOO_LARGE: more than 8 MiB"),
    502: errorResponse("PLANNER_FAILED"),
    ...unavailable,
  },
});
const confirm = createRoute({
  method: "post",
  path: `${BASE}/{cu_session_id}/confirm/{action_id}`,
  tags: ["computer-use"],
  summary: "Approve or reject a proposed action (high and critical actions need an approval to execute)",
  request: { params: ActionParams, body: jsonBody(CuConfirmInput) },
  responses: {
    200: jsonResponse("The action with its decision", CuAction),
    ...errorResponses(400, 404, 409),
  },
});
const execute = createRoute({
  method: "post",
  path: `${BASE}/{cu_session_id}/execute/{action_id}`,
  tags: ["computer-use"],
  summary: "Execute an action once (a repeat answers the first result; concurrent calls wait for it)",
  request: { params: ActionParams },
  responses: {
    200: jsonResponse("What the execution came to, with evidence", CuExecution),
    ...errorResponses(404, 409),
    ...unavailable,
  },
});
const evidence = createRoute({
  method: "get",
  path: `${BASE}/{cu_session_id}/evidence`,
  tags: ["computer-use"],
  summary:
    "The session's evidence: screenshots before and after each execution, URLs, accessibility summaries",
  request: { params: CuParams },
  responses: { 200: jsonResponse("The evidence", EvidencePage), ...errorResponses(404) },
});
const evidenceFile = createRoute({
  method: "get",
  path: `${BASE}/{cu_session_id}/evidence/{evidence_id}`,
  tags: ["computer-use"],
  summary: "One evidence screenshot",
  request: { params: EvidenceParams },
  responses: {
    200: {
      description: "The image",
      content: { "image/*": { schema: z.string().meta({ format: "binary" }) } },
    },
    ...errorResponses(404),
  },
});

/** `/api/computer-use/sessions`: preview, confirm, execute and the evidence of computer use. */
export function createComputerUseRoutes(deps: AppDeps) {
  const { computerUse: cu } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => c.json(await cu.createSession(c.req.valid("json")), 201))
    .openapi(get, async (c) => c.json(await cu.getSession(c.req.valid("param").cu_session_id), 200))
    .openapi(preview, async (c) =>
      c.json(await cu.preview(c.req.valid("param").cu_session_id, c.req.valid("json")), 200),
    )
    .openapi(confirm, async (c) => {
      const p = c.req.valid("param");
      return c.json(await cu.confirm(p.cu_session_id, p.action_id, c.req.valid("json")), 200);
    })
    .openapi(execute, async (c) => {
      const p = c.req.valid("param");
      return c.json(await cu.execute(p.cu_session_id, p.action_id), 200);
    })
    .openapi(evidence, async (c) => {
      const items = await cu.listEvidence(c.req.valid("param").cu_session_id);
      return c.json({ items, next_cursor: null }, 200);
    })
    .openapi(evidenceFile, async (c) => {
      const p = c.req.valid("param");
      const file = await cu.evidenceFile(p.cu_session_id, p.evidence_id);
      return c.body(new Uint8Array(file.data), 200, {
        "Content-Type": file.contentType,
        "Cache-Control": "no-store",
      });
    });
}
