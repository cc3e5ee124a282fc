import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { CheckComparisonInput, ComparisonCheck, checkComparison } from "@vetted/comparison";
import type { AppEnv } from "../app.js";
import { bodyOf, errorResponse, jsonResponse } from "./common.js";

const validateRoute = createRoute({
  method: "post",
  path: "/api/comparison/validate",
  tags: ["comparison"],
  summary: "Validate and lint a starter-pack comparison document",
  description:
    "Send the document as JSON (`document`) or as text (`text`, then every issue carries a line and column). " +
    "Answers every schema issue and, for a valid document, every lint issue. An invalid document is a 200 " +
    "with `ok: false`, not an error.",
  request: bodyOf(CheckComparisonInput),
  responses: {
    200: jsonResponse("The validation result and lint issues", ComparisonCheck),
    400: errorResponse("The request body is not JSON or does not send exactly one of document and text"),
  },
});

/** `POST /api/comparison/validate`: the comparison document checks of `@vetted/comparison` over HTTP. */
export function createComparisonRoutes() {
  return new OpenAPIHono<AppEnv>().openapi(validateRoute, (c) =>
    c.json(checkComparison(c.req.valid("json")), 200),
  );
}
