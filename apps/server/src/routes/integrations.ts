import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { InboundCallback } from "@vetted/runs/inbound-sms";
import type { AppDeps, AppEnv } from "../deps.js";
import { handleInboundSms, INBOUND_SMS_PATH } from "../integrations/vonage.js";
import { errorResponse, jsonResponse, PageQuery, pageOf } from "./common.js";

const Receipt = z
  .object({
    ok: z.literal(true),
    duplicate: z.boolean(),
    message_id: z.string(),
    run_id: z.string().nullable().meta({ description: "The run the message resumed" }),
  })
  .meta({ id: "InboundSmsReceipt" });
const CallbackPage = pageOf(InboundCallback, "InboundCallbackPage");

const inboundResponses = {
  200: jsonResponse("Stored (or a duplicate of a stored message)", Receipt),
  400: errorResponse("SIGNATURE_ALGORITHM_UNSUPPORTED, or fields missing"),
  401: errorResponse("UNAUTHORIZED (token missing, wrong or in the query) or SIGNATURE_INVALID"),
  422: errorResponse("REQUEST_INVALID: empty text"),
  503: errorResponse("INTEGRATION_NOT_CONFIGURED"),
};
const description =
  "Vonage's inbound-SMS webhook. Needs the `x-vonage-inbound-token` header and Vonage's signed-webhook " +
  "`sig` (HMAC-SHA256) with a fresh `timestamp`; parameters from the query and a JSON or form body are merged.";
const inboundGet = createRoute({
  method: "get",
  path: INBOUND_SMS_PATH,
  tags: ["integrations"],
  summary: "Receive an inbound SMS (query parameters)",
  description,
  security: [],
  responses: inboundResponses,
});
const inboundPost = createRoute({
  method: "post",
  path: INBOUND_SMS_PATH,
  tags: ["integrations"],
  summary: "Receive an inbound SMS (JSON or form body)",
  description,
  security: [],
  responses: inboundResponses,
});
const messages = createRoute({
  method: "get",
  path: "/api/integrations/vonage/messages",
  tags: ["integrations"],
  summary: "The audit of inbound callbacks (accepted, duplicate, rejected with why), newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of callbacks", CallbackPage), 400: errorResponse("CURSOR_INVALID") },
});

const NOT_CONFIGURED = { inboundToken: undefined, signatureSecret: undefined, maxSkewS: 600 };

/** `GET/POST /api/integrations/vonage/inbound-sms`, `GET /api/integrations/vonage/messages`. */
export function createIntegrationRoutes(deps: AppDeps) {
  const { runs } = deps;
  const settings = deps.vonage ?? NOT_CONFIGURED;
  return new OpenAPIHono<AppEnv>()
    .openapi(inboundGet, async (c) => c.json(await handleInboundSms(c, runs, settings), 200))
    .openapi(inboundPost, async (c) => c.json(await handleInboundSms(c, runs, settings), 200))
    .openapi(messages, async (c) => c.json(await runs.listInboundCallbacks(c.req.valid("query")), 200));
}
