import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import {
  FromArtifactsInput,
  GenerateInput,
  GenerateResult,
  PreviewInput,
  ProfileResolveInput,
  ProfileResult,
  ReconstructionPreview,
} from "@vetted/runs/reconstruction";
import type { AppDeps, AppEnv } from "../deps.js";
import { errorResponse, errorResponses, jsonBody, jsonResponse } from "./common.js";

const artifactErrors = {
  ...errorResponses(400, 403, 404, 409, 422),
  413: errorResponse("PAYLOAD_TOO_LARGE / ARTIFACT_TOO_LARGE: over VETTED_MAX_BODY_BYTES"),
};

const resolve = createRoute({
  method: "post",
  path: "/api/profiles/resolve",
  tags: ["reconstruction"],
  summary: "Classify artifacts (a finished session, a HAR, an HTML page) as api-centric or ui-centric",
  description:
    "Paths must be absolute and lie inside the allowed roots or the data directory (403 PATH_OUTSIDE_ROOT); " +
    "a HAR that is not HAR 1.2 is 422 HAR_INVALID; a session that is not finished is 409 SESSION_NOT_ACTIVE.",
  request: { body: jsonBody(ProfileResolveInput) },
  responses: { 200: jsonResponse("The profile", ProfileResult), ...artifactErrors },
});
const preview = createRoute({
  method: "post",
  path: "/api/reconstruction/preview",
  tags: ["reconstruction"],
  summary:
    "Reconstruct a flow from artifacts (stored 24 h): steps, confidences, Playwright and .http outputs",
  request: { body: jsonBody(PreviewInput) },
  responses: { 201: jsonResponse("The stored preview", ReconstructionPreview), ...artifactErrors },
});
const generate = createRoute({
  method: "post",
  path: "/api/reconstruction/generate",
  tags: ["reconstruction"],
  summary: "Store a preview's flow and a template for it (and start a run with create_run)",
  description: "An unknown preview_id is 404 PREVIEW_NOT_FOUND; one older than 24 h is 410 PREVIEW_EXPIRED.",
  request: { body: jsonBody(GenerateInput) },
  responses: {
    201: jsonResponse("The flow, template and run", GenerateResult),
    ...errorResponses(400, 404, 422),
    410: errorResponse("PREVIEW_EXPIRED"),
  },
});
const fromArtifacts = createRoute({
  method: "post",
  path: "/api/templates/from-artifacts",
  tags: ["reconstruction"],
  summary: "Preview and generate in one call: artifacts → flow + template (+ run)",
  request: { body: jsonBody(FromArtifactsInput) },
  responses: { 201: jsonResponse("The flow, template, run and preview", GenerateResult), ...artifactErrors },
});

/** Profiles and reconstruction: recordings and HARs → flows and templates. */
export function createReconstructionRoutes(deps: AppDeps) {
  const { reconstruction } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(resolve, async (c) => c.json(await reconstruction.resolveProfile(c.req.valid("json")), 200))
    .openapi(preview, async (c) => c.json(await reconstruction.preview(c.req.valid("json")), 201))
    .openapi(generate, async (c) => c.json(await reconstruction.generate(c.req.valid("json")), 201))
    .openapi(fromArtifacts, async (c) =>
      c.json(await reconstruction.fromArtifacts(c.req.valid("json")), 201),
    );
}
