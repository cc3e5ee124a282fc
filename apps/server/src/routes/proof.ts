import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  Campaign,
  CampaignDiff,
  CampaignDiffInput,
  CampaignInput,
  CampaignWithReport,
  Feasibility,
  type ProofEngine,
  ReleaseBrief,
  RunCompareInput,
  RunComparison,
  RunReview,
  SimilarFailureMatch,
} from "@vetted/runs/proof";
import type { AppEnv } from "../deps.js";
import { errorResponse, idParam, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const CampaignParams = z.object({ campaign_id: idParam("campaign_id") });
const RunParams = z.object({ run_id: idParam("run_id") });
const CampaignPage = pageOf(Campaign, "CampaignPage");
const SimilarFailures = z.object({ items: z.array(SimilarFailureMatch) }).meta({ id: "SimilarFailures" });
const tags = ["proof"];

const createCampaign = createRoute({
  method: "post",
  path: "/api/proof/campaigns",
  tags,
  summary: "Create a proof campaign over runs; its report is computed now and stored",
  request: { body: jsonBody(CampaignInput) },
  responses: {
    201: jsonResponse(
      "The campaign and its report (status failed under strict on any violation)",
      CampaignWithReport,
    ),
    400: errorResponse("VALIDATION_FAILED: not a campaign body"),
    422: errorResponse("REQUEST_INVALID: a run id repeated or unknown (details.unknown_run_ids)"),
  },
});
const listCampaigns = createRoute({
  method: "get",
  path: "/api/proof/campaigns",
  tags,
  summary: "List proof campaigns, newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of campaigns", CampaignPage), 400: errorResponse("CURSOR_INVALID") },
});
const getCampaign = createRoute({
  method: "get",
  path: "/api/proof/campaigns/{campaign_id}",
  tags,
  summary: "Get a campaign with its stored report",
  request: { params: CampaignParams },
  responses: {
    200: jsonResponse("The campaign and its report", CampaignWithReport),
    404: errorResponse("CAMPAIGN_NOT_FOUND"),
  },
});
const diffCampaign = createRoute({
  method: "post",
  path: "/api/proof/campaigns/{campaign_id}/diff",
  tags,
  summary: "This campaign's figures minus another's",
  request: { params: CampaignParams, body: jsonBody(CampaignDiffInput) },
  responses: {
    200: jsonResponse(
      "Deltas of run count, valid runs, gate pass rate, evidence coverage, median duration",
      CampaignDiff,
    ),
    400: errorResponse("VALIDATION_FAILED"),
    404: errorResponse("CAMPAIGN_NOT_FOUND (either campaign)"),
  },
});
const compare = createRoute({
  method: "post",
  path: "/api/proof/runs/compare",
  tags,
  summary: "Compare two runs: status, gates, per-step durations, checks, a summary",
  request: { body: jsonBody(RunCompareInput) },
  responses: {
    200: jsonResponse("The comparison (deltas are right minus left)", RunComparison),
    400: errorResponse("VALIDATION_FAILED"),
    404: errorResponse("RUN_NOT_FOUND"),
  },
});
const review = createRoute({
  method: "get",
  path: "/api/proof/runs/{run_id}/review",
  tags,
  summary: "A run's deterministic findings, and a generated narrative when a review model is configured",
  description:
    "The findings never depend on the model. When the model fails or times out the review is still 200: " +
    "`narrative` is `{status: unavailable, code: UPSTREAM_FAILED | UPSTREAM_TIMEOUT, upstream_status}`.",
  request: { params: RunParams },
  responses: { 200: jsonResponse("The review", RunReview), 404: errorResponse("RUN_NOT_FOUND") },
});
const brief = createRoute({
  method: "get",
  path: "/api/proof/runs/{run_id}/release-brief",
  tags,
  summary: "A release recommendation for a run: blocked, investigate, review-ready or insufficient-evidence",
  request: {
    params: RunParams,
    query: z.object({
      baseline_run_id: z.string().min(1).optional().meta({ description: "A run to compare against" }),
    }),
  },
  responses: {
    200: jsonResponse("The release brief", ReleaseBrief),
    404: errorResponse("RUN_NOT_FOUND (the run or the baseline)"),
  },
});
const similar = createRoute({
  method: "get",
  path: "/api/proof/runs/{run_id}/similar-failures",
  tags,
  summary: "Failed or blocked runs whose failure reads most like this run's, with why each matched",
  request: {
    params: RunParams,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(20).optional().meta({ description: "1..20, default 5" }),
    }),
  },
  responses: {
    200: jsonResponse("Best first; empty when the run has not failed", SimilarFailures),
    400: errorResponse("VALIDATION_FAILED: limit out of 1..20"),
    404: errorResponse("RUN_NOT_FOUND"),
  },
});
const feasibility = createRoute({
  method: "get",
  path: "/api/proof/templates/{template_id}/feasibility",
  tags,
  summary: "Whether a template can run against a target URL, what it needs, and hints to move it there",
  request: {
    params: z.object({ template_id: idParam("template_id") }),
    query: z.object({ target: z.string().min(1).max(2048).meta({ description: "An absolute http(s) URL" }) }),
  },
  responses: {
    200: jsonResponse("The feasibility", Feasibility),
    400: errorResponse("VALIDATION_FAILED: no target"),
    404: errorResponse("TEMPLATE_NOT_FOUND"),
    422: errorResponse("REQUEST_INVALID: the target is not an absolute http(s) URL"),
  },
});

/** Every `/api/proof` route: campaigns, run comparison, review, release brief, similar failures, feasibility. */
export function createProofRoutes(deps: { proof: ProofEngine }) {
  const { proof } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(createCampaign, async (c) => c.json(await proof.createCampaign(c.req.valid("json")), 201))
    .openapi(listCampaigns, async (c) => c.json(await proof.listCampaigns(c.req.valid("query")), 200))
    .openapi(getCampaign, async (c) => c.json(await proof.getCampaign(c.req.valid("param").campaign_id), 200))
    .openapi(diffCampaign, async (c) =>
      c.json(await proof.diffCampaigns(c.req.valid("param").campaign_id, c.req.valid("json")), 200),
    )
    .openapi(compare, async (c) => c.json(await proof.compareRuns(c.req.valid("json")), 200))
    .openapi(review, async (c) => c.json(await proof.reviewRun(c.req.valid("param").run_id), 200))
    .openapi(brief, async (c) =>
      c.json(
        await proof.releaseBrief(c.req.valid("param").run_id, c.req.valid("query").baseline_run_id),
        200,
      ),
    )
    .openapi(similar, async (c) => {
      const items = await proof.similarFailures(c.req.valid("param").run_id, c.req.valid("query").limit ?? 5);
      return c.json({ items }, 200);
    })
    .openapi(feasibility, async (c) =>
      c.json(await proof.feasibility(c.req.valid("param").template_id, c.req.valid("query").target), 200),
    );
}
