import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { StepEvidence } from "@vetted/runs";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, idParam, jsonResponse, PageQuery, pageOf } from "./common.js";

const RunParams = z.object({ run_id: idParam("run_id") });
const StepParams = RunParams.extend({ step_id: idParam("step_id") });
const ShotParams = RunParams.extend({
  evidence_id: idParam("evidence_id"),
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
});
const EvidencePage = pageOf(StepEvidence, "StepEvidencePage");

const list = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/evidence",
  tags: ["runs"],
  summary: "A run's browser-step evidence: timing, selector used and fallback trail, URLs, screenshots",
  request: {
    params: RunParams,
    query: PageQuery.extend({
      step_id: z.string().min(1).optional().meta({ description: "Only this step's" }),
    }),
  },
  responses: {
    200: jsonResponse("A page of evidence, oldest first", EvidencePage),
    404: errorResponse("No such run (or no such step)"),
  },
});
const perStep = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/steps/{step_id}/evidence",
  tags: ["runs"],
  summary: "One step's evidence (one entry per execution of the step)",
  request: { params: StepParams, query: PageQuery },
  responses: {
    200: jsonResponse("A page of the step's evidence", EvidencePage),
    404: errorResponse("No such run or step"),
  },
});
const screenshot = createRoute({
  method: "get",
  path: "/api/runs/{run_id}/evidence/{evidence_id}/screenshots/{name}",
  tags: ["runs"],
  summary: "One evidence screenshot (JPEG)",
  request: { params: ShotParams },
  responses: {
    200: {
      description: "The screenshot",
      content: { "image/jpeg": { schema: z.string().meta({ format: "binary" }) } },
    },
    404: errorResponse("No such run or screenshot"),
  },
});

/** `/api/runs/{run_id}/evidence…`: what browser steps recorded, and their screenshots. */
export function createEvidenceRoutes(deps: AppDeps) {
  const { runs } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(list, async (c) =>
      c.json(await runs.listEvidence(c.req.valid("param").run_id, c.req.valid("query")), 200),
    )
    .openapi(perStep, async (c) => {
      const { run_id, step_id } = c.req.valid("param");
      return c.json(await runs.listEvidence(run_id, { ...c.req.valid("query"), step_id }), 200);
    })
    .openapi(screenshot, async (c) => {
      const { run_id, evidence_id, name } = c.req.valid("param");
      const shot = await runs.readScreenshot(run_id, evidence_id, name);
      return c.body(new Uint8Array(shot.bytes), 200, {
        "Content-Type": shot.mime,
        "Cache-Control": "private, max-age=3600",
      });
    });
}
