import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import {
  EMBEDDINGS_MAX_CHARS,
  EMBEDDINGS_MAX_TEXTS,
  type Embeddings,
  EmbeddingsBatchResponse,
} from "@vetted/runs/embeddings";
import type { AppEnv } from "../deps.js";
import { errorResponse, jsonBody, jsonResponse } from "./common.js";

// The body's shape only: the limits (count, length, blank, control characters) answer 422 from the service.
const BatchBody = z
  .object({
    texts: z.array(z.string()).meta({
      description: `1..${EMBEDDINGS_MAX_TEXTS} texts of 1..${EMBEDDINGS_MAX_CHARS} characters, not blank, no control characters`,
    }),
    model: z.string().optional().meta({ description: "Default: local" }),
  })
  .meta({ id: "EmbeddingsBatchBody" });

const batch = createRoute({
  method: "post",
  path: "/api/embeddings/batch",
  tags: ["embeddings"],
  summary: "Embed a batch of texts (one unit-length vector a text)",
  request: { body: jsonBody(BatchBody) },
  responses: {
    200: jsonResponse("The vectors, in order", EmbeddingsBatchResponse),
    400: errorResponse("Not a batch"),
    422: errorResponse(
      "REQUEST_INVALID (a text blank, too long or with control characters) or MODEL_UNKNOWN",
    ),
    502: errorResponse("UPSTREAM_FAILED: the remote model failed (its status in details)"),
    504: errorResponse("UPSTREAM_TIMEOUT: the remote model did not answer in time"),
  },
});

/** `POST /api/embeddings/batch`. */
export function createEmbeddingRoutes(deps: { embeddings: Embeddings }) {
  return new OpenAPIHono<AppEnv>().openapi(batch, async (c) => {
    const body = c.req.valid("json");
    return c.json(
      await deps.embeddings.embedBatch(body.model === undefined ? { texts: body.texts } : body),
      200,
    );
  });
}
