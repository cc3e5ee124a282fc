import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  BatchTriageRequest,
  BatchTriageResult,
  DraftRuleResult,
  FromExamplesRequest,
  LearnedRuleView,
  ReviewQueuePage,
  ReviewQueueQuery,
  RuleOutcome,
  RuleRequest,
} from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import {
  actorOf,
  Cursor,
  errorResponses as errors,
  idParam,
  bodyOf as json,
  jsonResponse,
  PageLimit,
  PageQuery,
} from "./common.js";
import { IfMatch, parseIfMatch } from "./manifest.js";
import { createRulesFileRoutes } from "./rules-file.js";

const JobParam = z.object({ job_id: idParam("job_id", "An analyze job") });
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  200: jsonResponse(description, schema),
});

/**
 * Review of an analyze job's manifest: the prioritized queue, batch triage, review rules (preview, apply,
 * draft from examples), rules files (simulate, run), and the learned rules in preferences.
 */
export function createReviewRoutes(deps: Pick<AppDeps, "review">) {
  const { review } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/jobs/{job_id}/review-queue",
        tags: ["review"],
        summary:
          "Rows needing attention, highest priority first (bucket, then lowest confidence), with a summary",
        request: { params: JobParam, query: ReviewQueueQuery.extend({ cursor: Cursor, limit: PageLimit }) },
        responses: { ...ok("One page of the queue", ReviewQueuePage), ...errors(400, 404, 409) },
      }),
      async (c) => c.json(await review.queue(c.req.valid("param").job_id, c.req.valid("query")), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/review-queue/batch-triage",
        tags: ["review"],
        summary:
          "One action over many rows (ids, a filter, or all: true), atomically and audited; honours If-Match",
        request: { params: JobParam, headers: IfMatch, ...json(BatchTriageRequest) },
        responses: {
          ...ok("Rows matched and changed, the new revision and summary", BatchTriageResult),
          ...errors(400, 404, 409, 412),
        },
      }),
      async (c) => {
        const expectedRevision = parseIfMatch(c.req.header("If-Match"));
        const { job_id } = c.req.valid("param");
        const result = await review.batchTriage(job_id, c.req.valid("json"), actorOf(c), {
          expectedRevision,
        });
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/review-rules/preview",
        tags: ["review"],
        summary: "The rows a rule (saved or inline) matches and the exact change per row; saves nothing",
        request: { params: JobParam, ...json(RuleRequest) },
        responses: { ...ok("What the rule would do", RuleOutcome), ...errors(400, 404, 409) },
      }),
      async (c) => c.json(await review.previewRule(c.req.valid("param").job_id, c.req.valid("json")), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/review-rules/apply",
        tags: ["review"],
        summary: "Applies a rule to the manifest as one audited revision; honours If-Match",
        request: { params: JobParam, headers: IfMatch, ...json(RuleRequest) },
        responses: { ...ok("What the rule did", RuleOutcome), ...errors(400, 404, 409, 412) },
      }),
      async (c) => {
        const expectedRevision = parseIfMatch(c.req.header("If-Match"));
        const { job_id } = c.req.valid("param");
        const result = await review.applyRule(job_id, c.req.valid("json"), actorOf(c), { expectedRevision });
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/review-rules/from-examples",
        tags: ["review"],
        summary: "A draft rule inferred from example rows (not saved), what else it matches, and warnings",
        request: { params: JobParam, ...json(FromExamplesRequest) },
        responses: { ...ok("The draft", DraftRuleResult), ...errors(400, 404) },
      }),
      async (c) =>
        c.json(await review.draftFromExamples(c.req.valid("param").job_id, c.req.valid("json").row_ids), 200),
    )
    .route("/", createRulesFileRoutes(deps))
    .route("/", createLearnedRuleRoutes(deps));
}

/** The learned rules in preferences: list and forget. */
function createLearnedRuleRoutes(deps: Pick<AppDeps, "review">) {
  const { review } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "get",
        path: "/api/preferences/learned-rules",
        tags: ["preferences"],
        summary: "What was learned from a person's edits: signal → outcome, counts and strength",
        request: { query: PageQuery },
        responses: {
          ...ok(
            "One page of learned rules, strongest first",
            z.object({ items: z.array(LearnedRuleView), next_cursor: z.string().nullable() }),
          ),
          ...errors(400),
        },
      }),
      async (c) => c.json(await review.listLearned(c.req.valid("query")), 200),
    )
    .openapi(
      createRoute({
        method: "delete",
        path: "/api/preferences/learned-rules",
        tags: ["preferences"],
        summary: "Clears learned rules: all, or one with ?id=",
        request: { query: z.object({ id: z.string().min(1).optional() }) },
        responses: { 204: { description: "Cleared" }, ...errors(404) },
      }),
      async (c) => {
        await review.clearLearned(c.req.valid("query").id);
        return c.body(null, 204);
      },
    );
}
