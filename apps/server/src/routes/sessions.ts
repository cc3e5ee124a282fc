import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { FlowDraft, Session, SessionStartInput } from "@vetted/runs/sessions";
import type { AppDeps, AppEnv } from "../deps.js";
import {
  errorResponse,
  errorResponses,
  idParam,
  jsonBody,
  jsonResponse,
  PageQuery,
  pageOf,
} from "./common.js";

const SessionParams = z.object({ session_id: idParam("session_id") });
const SessionPage = pageOf(Session, "SessionPage");
const unavailable = {
  503: errorResponse("BROWSER_UNAVAILABLE: no browser (the message says how to install one)"),
};

const list = createRoute({
  method: "get",
  path: "/api/sessions",
  tags: ["sessions"],
  summary: "List recording sessions, newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of sessions", SessionPage), ...errorResponses(400) },
});
const start = createRoute({
  method: "post",
  path: "/api/sessions/start",
  tags: ["sessions"],
  summary: "Open a live, recording browser session at start_url (http or https only)",
  request: { body: jsonBody(SessionStartInput) },
  responses: {
    201: jsonResponse("The active session", Session),
    ...errorResponses(400, 404, 422),
    ...unavailable,
  },
});
const get = createRoute({
  method: "get",
  path: "/api/sessions/{session_id}",
  tags: ["sessions"],
  summary: "Get a session",
  request: { params: SessionParams },
  responses: { 200: jsonResponse("The session", Session), ...errorResponses(404) },
});
const finish = createRoute({
  method: "post",
  path: "/api/sessions/{session_id}/finish",
  tags: ["sessions"],
  summary: "Finish a session: save its storage state, index its artifacts, store its flow draft",
  request: { params: SessionParams },
  responses: { 200: jsonResponse("The finished session", Session), ...errorResponses(404, 409) },
});
const draft = createRoute({
  method: "get",
  path: "/api/sessions/{session_id}/flow-draft",
  tags: ["sessions"],
  summary:
    "The flow draft recorded so far (final once the session is finished); POST /api/flows {session_id} promotes it",
  request: { params: SessionParams },
  responses: { 200: jsonResponse("The flow draft", FlowDraft), ...errorResponses(404) },
});
const screenshot = createRoute({
  method: "get",
  path: "/api/sessions/{session_id}/screenshot",
  tags: ["sessions"],
  summary: "A PNG of the live session's page, as a person driving it sees it (secret fields masked)",
  request: { params: SessionParams },
  responses: {
    200: {
      description: "The screenshot",
      content: { "image/png": { schema: z.string().meta({ format: "binary" }) } },
    },
    ...errorResponses(404, 409),
  },
});

/** `/api/sessions`: live recording sessions in the browser, their drafts and screenshots. */
export function createSessionRoutes(deps: AppDeps) {
  const { sessions } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(list, async (c) => c.json(await sessions.listSessions(c.req.valid("query")), 200))
    .openapi(start, async (c) => c.json(await sessions.startSession(c.req.valid("json")), 201))
    .openapi(get, async (c) => c.json(await sessions.getSession(c.req.valid("param").session_id), 200))
    .openapi(finish, async (c) => c.json(await sessions.finishSession(c.req.valid("param").session_id), 200))
    .openapi(draft, async (c) => c.json(await sessions.getFlowDraft(c.req.valid("param").session_id), 200))
    .openapi(screenshot, async (c) => {
      const png = await sessions.screenshot(c.req.valid("param").session_id);
      return c.body(new Uint8Array(png), 200, { "Content-Type": "image/png", "Cache-Control": "no-store" });
    });
}
