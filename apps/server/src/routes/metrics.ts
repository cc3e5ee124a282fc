import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppDeps, AppEnv } from "../app.js";

const route = createRoute({
  method: "get",
  path: "/api/metrics",
  tags: ["metrics"],
  summary: "Prometheus metrics: HTTP requests, runs by status, gate waits, resume latency, timeouts, leases",
  responses: {
    200: {
      description: "Prometheus text exposition format",
      content: { "text/plain": { schema: z.string() } },
    },
  },
});

/** `GET /api/metrics` in the Prometheus text format. */
export function createMetricsRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>().openapi(route, async (c) => {
    const body = await deps.metrics.registry.metrics();
    return c.text(body, 200, { "Content-Type": deps.metrics.registry.contentType });
  });
}
