import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Run } from "@vetted/runs";
import { FlowDraft } from "@vetted/runs/sessions";
import {
  LatestFlow,
  TowerDraftPatch,
  type TowerEngine,
  TowerEvidenceSchema,
  TowerReplayInput,
  TowerStepReplayInput,
} from "@vetted/runs/tower";
import type { AppEnv } from "../deps.js";
import { errorResponses, jsonBody, jsonResponse } from "./common.js";

const TAGS = ["command-tower"];
const SESSION_SEMANTICS =
  "The finished session whose flow to use. Omitted, `null` or `none` → the caller's latest finished session; an empty string → 400; a malformed id (not `ss_…`) → 400; an unknown (or unfinished) session → 404 SESSION_NOT_FOUND.";
const SessionQuery = z.object({
  session_id: z.string().max(200).optional().meta({ description: SESSION_SEMANTICS }),
});

const TowerDraftView = z
  .object({
    session_id: z.string(),
    name: z.string(),
    start_url: z.string(),
    version: z.number().int().meta({ description: "0 until the first edit; PATCH with expected_version" }),
    steps: FlowDraft.shape.steps,
    secrets: z.array(z.string()),
    event_count: z.number().int(),
    generated_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "TowerDraft" });
const TowerReplayView = z
  .object({
    session_id: z.string(),
    flow_id: z.string(),
    template_id: z.string().nullable(),
    start_at_step_id: z.string().nullable(),
    stop_after_step_id: z.string().nullable(),
    run: Run,
  })
  .meta({ id: "TowerReplay" });

const latestFlow = createRoute({
  method: "get",
  path: "/api/command-tower/latest-flow",
  tags: TAGS,
  summary: "The latest finished session's flow (as edited in the draft), step by step",
  description: `${SESSION_SEMANTICS} Exception: asked for the latest before any session was finished, this answers 200 with an empty preview (session_id, start_url and generated_at null, no steps), not 404.`,
  request: { query: SessionQuery },
  responses: {
    200: jsonResponse("The latest flow, or the empty preview when no session was finished yet", LatestFlow),
    ...errorResponses(400, 404),
  },
});
const getDraft = createRoute({
  method: "get",
  path: "/api/command-tower/latest-flow-draft",
  tags: TAGS,
  summary: "The latest flow's editable draft, with its version",
  description: SESSION_SEMANTICS,
  request: { query: SessionQuery },
  responses: { 200: jsonResponse("The draft", TowerDraftView), ...errorResponses(400, 404) },
});
const patchDraft = createRoute({
  method: "patch",
  path: "/api/command-tower/latest-flow-draft",
  tags: TAGS,
  summary: "Edit the latest flow's draft: reorder (move), delete, change a step's selectors or value",
  description: `All edits apply or none. expected_version must be the draft's version: a stale one → 409 VERSION_CONFLICT (of two concurrent edits at one version, one wins). An edit naming no step of the draft → 404 STEP_NOT_FOUND. ${SESSION_SEMANTICS}`,
  request: { query: SessionQuery, body: jsonBody(TowerDraftPatch) },
  responses: { 200: jsonResponse("The edited draft", TowerDraftView), ...errorResponses(400, 404, 409) },
});
function replayRoute(path: string, summary: string, description: string, body: z.ZodType) {
  return createRoute({
    method: "post",
    path: `/api/command-tower/${path}`,
    tags: TAGS,
    summary,
    description: `${description} ${SESSION_SEMANTICS}`,
    request: { query: SessionQuery, body: jsonBody(body) },
    responses: {
      201: jsonResponse("The queued run, and the flow (and template) it runs", TowerReplayView),
      ...errorResponses(400, 404),
    },
  });
}
const replayLatest = replayRoute(
  "replay-latest",
  "Replay the latest flow (as edited) as a new run",
  "Params (and secrets such as ${secrets.password}) go in `params`.",
  TowerReplayInput,
);
const replayFrom = replayRoute(
  "replay-latest-from-step",
  "Replay the latest flow from a step: the run starts there (start_at_step_id), earlier steps do not run",
  "replay_preconditions: start with the session's saved login (session_state) and first open the step's page (navigate). A step_id not in the flow → 404 STEP_NOT_FOUND.",
  TowerStepReplayInput,
);
const replayStep = replayRoute(
  "replay-latest-step",
  "Replay one step of the latest flow (start_at_step_id = stop_after_step_id = step_id)",
  "Preconditions as for replay-latest-from-step. A step_id not in the flow → 404 STEP_NOT_FOUND.",
  TowerStepReplayInput,
);
const evidence = createRoute({
  method: "get",
  path: "/api/command-tower/evidence",
  tags: TAGS,
  summary:
    "A step's latest evidence from the tower's replays: ok, detail, duration, matched selector, screenshots",
  description: `step_id is required (400 without it) and must be a step of the flow (404 STEP_NOT_FOUND otherwise); evidence is null before a replay ran the step. ${SESSION_SEMANTICS}`,
  request: {
    query: SessionQuery.extend({
      step_id: z.string().min(1).max(200).meta({ description: "A step of the latest flow (required)" }),
    }),
  },
  responses: {
    200: jsonResponse(
      "The step's latest evidence",
      z.object({ session_id: z.string(), step_id: z.string(), evidence: TowerEvidenceSchema.nullable() }),
    ),
    ...errorResponses(400, 404),
  },
});
const timeline = createRoute({
  method: "get",
  path: "/api/command-tower/evidence-timeline",
  tags: TAGS,
  summary: "The evidence of the tower's replays of the latest flow, newest first",
  description: SESSION_SEMANTICS,
  request: {
    query: SessionQuery.extend({
      limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: "1–200, default 50" }),
    }),
  },
  responses: {
    200: jsonResponse(
      "The timeline",
      z.object({ session_id: z.string(), items: z.array(TowerEvidenceSchema) }),
    ),
    ...errorResponses(400, 404),
  },
});

/** `/api/command-tower/*` (but the overview): the latest flow, its draft, replays and their evidence. */
export function createCommandTowerRoutes(tower: TowerEngine) {
  const sid = (q: { session_id?: string | undefined }) => q.session_id;
  return new OpenAPIHono<AppEnv>()
    .openapi(latestFlow, async (c) => c.json(await tower.latestFlow(sid(c.req.valid("query"))), 200))
    .openapi(getDraft, async (c) => c.json(await tower.getDraft(sid(c.req.valid("query"))), 200))
    .openapi(patchDraft, async (c) =>
      c.json(await tower.patchDraft(sid(c.req.valid("query")), c.req.valid("json")), 200),
    )
    .openapi(replayLatest, async (c) =>
      c.json(await tower.replayLatest(sid(c.req.valid("query")), c.req.valid("json")), 201),
    )
    .openapi(replayFrom, async (c) =>
      c.json(await tower.replayFromStep(sid(c.req.valid("query")), c.req.valid("json")), 201),
    )
    .openapi(replayStep, async (c) =>
      c.json(await tower.replayStep(sid(c.req.valid("query")), c.req.valid("json")), 201),
    )
    .openapi(evidence, async (c) => {
      const q = c.req.valid("query");
      return c.json(await tower.evidence(q.step_id, sid(q)), 200);
    })
    .openapi(timeline, async (c) => {
      const q = c.req.valid("query");
      return c.json(await tower.evidenceTimeline(sid(q), q.limit), 200);
    });
}
