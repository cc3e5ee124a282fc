import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { RulesFileOutcome, RulesFileRequest } from "@vetted/fileorg";
import type { AppDeps, AppEnv } from "../deps.js";
import { actorOf, errorResponses as errors, idParam, bodyOf as json, jsonResponse } from "./common.js";
import { IfMatch, parseIfMatch } from "./manifest.js";

const JobParam = z.object({ job_id: idParam("job_id", "An analyze job") });
const BAD_FILE =
  "400 RULES_FILE_SYNTAX (the YAML cannot be read) or RULES_FILE_INVALID (not a rules file), every problem in details.issues: {code, rule?, rule_index?, location_index?, field, line?, column?, message}";

/**
 * A rules file (the YAML text of `vetted rules`) over an analyze job's manifest: simulated (per-rule counts
 * and example rows, nothing written) or run (one atomic, audited revision through the rule engine); and the
 * saved review rules exported as one.
 */
export function createRulesFileRoutes(deps: Pick<AppDeps, "review">) {
  const { review } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/rules-file/simulate",
        tags: ["review"],
        summary: "What each rule of a rules file would change in the plan, with example rows; saves nothing",
        description: BAD_FILE,
        request: { params: JobParam, ...json(RulesFileRequest) },
        responses: {
          200: jsonResponse("What the rules would do (applied: false)", RulesFileOutcome),
          ...errors(400, 404, 409),
        },
      }),
      async (c) =>
        c.json(await review.simulateRulesFile(c.req.valid("param").job_id, c.req.valid("json").text), 200),
    )
    .openapi(
      createRoute({
        method: "post",
        path: "/api/jobs/{job_id}/rules-file/run",
        tags: ["review"],
        summary:
          "Applies a rules file to the plan as one audited revision (all rules or none); honours If-Match. Nothing moves",
        description: BAD_FILE,
        request: { params: JobParam, headers: IfMatch, ...json(RulesFileRequest) },
        responses: {
          200: jsonResponse("What the rules did (applied: true) and the new revision", RulesFileOutcome),
          ...errors(400, 404, 409, 412),
        },
      }),
      async (c) => {
        const expectedRevision = parseIfMatch(c.req.header("If-Match"));
        const { job_id } = c.req.valid("param");
        const { text } = c.req.valid("json");
        const result = await review.runRulesFile(job_id, text, actorOf(c), { expectedRevision });
        c.header("ETag", `"${result.revision}"`);
        return c.json(result, 200);
      },
    )
    .openapi(
      createRoute({
        method: "get",
        path: "/api/preferences/review-rules/export",
        tags: ["preferences"],
        summary:
          "The saved review rules as a rules file (YAML), in the order they apply; rules a file cannot say are left out and named in its header comment",
        responses: {
          200: {
            description: "A rules file (version: 1), ready for `vetted rules check`",
            content: { "application/yaml": { schema: z.string() } },
          },
        },
      }),
      async (c) => {
        const exported = await review.exportRulesFile();
        return c.text(exported.text, 200, { "Content-Type": "application/yaml; charset=utf-8" });
      },
    );
}
