import { readFile } from "node:fs/promises";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { CheckComparisonInput, ComparisonCheck, checkComparison } from "@vetted/comparison";
import type { AppDeps, AppEnv } from "../deps.js";
import { ServerError } from "../errors.js";
import { bodyOf, errorResponse, errorResponses, jsonResponse } from "./common.js";

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

const ConfiguredDocument = z
  .object({
    path: z.string().meta({ description: "The file `VETTED_COMPARISON_FILE` names" }),
    text: z.string().meta({ description: "The file's text, as read" }),
    document: z
      .unknown()
      .meta({ description: "The parsed document when it is valid against the schema, else null" }),
    check: ComparisonCheck,
  })
  .meta({ id: "ConfiguredComparisonDocument" });

const documentRoute = createRoute({
  method: "get",
  path: "/api/comparison/document",
  tags: ["comparison"],
  summary: "The server's configured comparison document, checked",
  description:
    "Reads the file `VETTED_COMPARISON_FILE` names at each call and answers its text, the parsed document " +
    "(when valid) and its check (issues with line and column). 404 `COMPARISON_NOT_CONFIGURED` when the " +
    "variable is unset or the file cannot be read.",
  responses: {
    200: jsonResponse("The document and its check", ConfiguredDocument),
    ...errorResponses(404),
  },
});

async function readConfigured(path: string | undefined): Promise<{ path: string; text: string }> {
  if (path === undefined) {
    throw new ServerError(
      "COMPARISON_NOT_CONFIGURED",
      "No comparison document is configured; set VETTED_COMPARISON_FILE to a JSON file and restart the server.",
    );
  }
  try {
    return { path, text: await readFile(path, "utf8") };
  } catch (err) {
    const reason = err instanceof Error && "code" in err ? String(err.code) : "unreadable";
    throw new ServerError(
      "COMPARISON_NOT_CONFIGURED",
      `The comparison document ${path} (VETTED_COMPARISON_FILE) cannot be read (${reason}).`,
    );
  }
}

/**
 * `POST /api/comparison/validate`: the comparison document checks of `@vetted/comparison` over HTTP;
 * `GET /api/comparison/document`: the configured document (`VETTED_COMPARISON_FILE`) with its check.
 */
export function createComparisonRoutes(deps: Pick<AppDeps, "comparisonFile"> = {}) {
  return new OpenAPIHono<AppEnv>()
    .openapi(validateRoute, (c) => c.json(checkComparison(c.req.valid("json")), 200))
    .openapi(documentRoute, async (c) => {
      const { path, text } = await readConfigured(deps.comparisonFile);
      const check = checkComparison({ text });
      const document: unknown = check.valid ? JSON.parse(text) : null;
      return c.json({ path, text, document, check }, 200);
    });
}
