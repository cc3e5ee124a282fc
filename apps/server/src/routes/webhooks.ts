import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { WebhooksEngine } from "@vetted/runs/webhooks";
import { Webhook, WebhookDelivery, WebhookInput } from "@vetted/runs/webhooks";
import type { AppEnv } from "../deps.js";
import { errorResponses, idParam, jsonBody, jsonResponse, PageQuery, pageOf } from "./common.js";

const WebhookParams = z.object({ webhook_id: idParam("webhook_id") });
const DeliveryParams = WebhookParams.extend({ delivery_id: idParam("delivery_id") });
const WebhookPage = pageOf(Webhook, "WebhookPage");
const DeliveryPage = pageOf(WebhookDelivery, "WebhookDeliveryPage");
const TAGS = ["webhooks"];

const create = createRoute({
  method: "post",
  path: "/api/webhooks",
  tags: TAGS,
  summary: "Subscribe a URL to events (signed with the secret; the URL must pass the outbound policy)",
  request: { body: jsonBody(WebhookInput) },
  responses: { 201: jsonResponse("The webhook (never its secret)", Webhook), ...errorResponses(400, 422) },
});
const list = createRoute({
  method: "get",
  path: "/api/webhooks",
  tags: TAGS,
  summary: "List webhooks, newest first",
  request: { query: PageQuery },
  responses: { 200: jsonResponse("A page of webhooks", WebhookPage), ...errorResponses(400) },
});
const get = createRoute({
  method: "get",
  path: "/api/webhooks/{webhook_id}",
  tags: TAGS,
  summary: "Get a webhook",
  request: { params: WebhookParams },
  responses: { 200: jsonResponse("The webhook", Webhook), ...errorResponses(404) },
});
const remove = createRoute({
  method: "delete",
  path: "/api/webhooks/{webhook_id}",
  tags: TAGS,
  summary: "Delete a webhook and its deliveries",
  request: { params: WebhookParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses(404) },
});
const deliveries = createRoute({
  method: "get",
  path: "/api/webhooks/{webhook_id}/deliveries",
  tags: TAGS,
  summary: "List a webhook's deliveries, newest first, with each attempt",
  request: { params: WebhookParams, query: PageQuery },
  responses: { 200: jsonResponse("A page of deliveries", DeliveryPage), ...errorResponses(400, 404) },
});
const redeliver = createRoute({
  method: "post",
  path: "/api/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver",
  tags: TAGS,
  summary: "Send a delivery's event again (a new delivery, due now)",
  request: { params: DeliveryParams },
  responses: { 202: jsonResponse("The new delivery", WebhookDelivery), ...errorResponses(404) },
});
const test = createRoute({
  method: "post",
  path: "/api/webhooks/{webhook_id}/test",
  tags: TAGS,
  summary: "Send a signed `webhook.test` event to this webhook alone (a new delivery, due now)",
  request: { params: WebhookParams },
  responses: { 202: jsonResponse("The test delivery", WebhookDelivery), ...errorResponses(400, 404) },
});

/** `/api/webhooks`: subscriptions, their deliveries, redelivery and test deliveries. */
export function createWebhookRoutes(deps: { webhooks: WebhooksEngine }) {
  const { webhooks } = deps;
  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => c.json(await webhooks.createWebhook(c.req.valid("json")), 201))
    .openapi(list, async (c) => c.json(await webhooks.listWebhooks(c.req.valid("query")), 200))
    .openapi(get, async (c) => c.json(await webhooks.getWebhook(c.req.valid("param").webhook_id), 200))
    .openapi(remove, async (c) => {
      await webhooks.deleteWebhook(c.req.valid("param").webhook_id);
      return c.body(null, 204);
    })
    .openapi(deliveries, async (c) =>
      c.json(await webhooks.listDeliveries(c.req.valid("param").webhook_id, c.req.valid("query")), 200),
    )
    .openapi(redeliver, async (c) => {
      const { webhook_id, delivery_id } = c.req.valid("param");
      return c.json(await webhooks.redeliver(webhook_id, delivery_id), 202);
    })
    .openapi(test, async (c) => c.json(await webhooks.sendTest(c.req.valid("param").webhook_id), 202));
}
