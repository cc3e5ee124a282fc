import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "../deps.js";
import { textResponse } from "./common.js";

const route = createRoute({
  method: "get",
  path: "/api/metrics",
  tags: ["metrics"],
  summary: "Prometheus metrics: HTTP requests, runs by status, gate waits, resume latency, timeouts, leases",
  responses: {
    200: textResponse("Prometheus text exposition format"),
  },
});

/** `GET /api/metrics` in the Prometheus text format. */
export function createMetricsRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>().openapi(route, async (c) => {
    const body = await deps.metrics.registry.metrics();
    return c.text(body, 200, { "Content-Type": deps.metrics.registry.contentType });
  });
}
