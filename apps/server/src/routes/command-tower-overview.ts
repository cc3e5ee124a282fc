import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { LatestFlow, type TowerEngine } from "@vetted/runs/tower";
import type { AppEnv } from "../deps.js";
import { alertsReport, diagnosticsReport, type HealthSources } from "../health-report.js";
import { jsonResponse } from "./common.js";

const Overview = z
  .object({
    status: z.enum(["ok", "degraded"]),
    diagnostics: z.record(z.string(), z.unknown()).meta({
      description:
        "GET /api/health/diagnostics without its metrics: version, uptime, storage, runs, tasks, browser",
    }),
    alerts: z.record(z.string(), z.unknown()).meta({ description: "GET /api/health/alerts" }),
    latest_flow: LatestFlow.nullable().meta({ description: "Null until a session has been finished" }),
  })
  .meta({ id: "CommandTowerOverview" });

const overview = createRoute({
  method: "get",
  path: "/api/command-tower/overview",
  tags: ["command-tower"],
  summary: "One look: status, a diagnostics summary, the alerts, and the latest finished session's flow",
  responses: { 200: jsonResponse("The overview", Overview) },
});

/** `GET /api/command-tower/overview`: the health reports and the latest flow together. */
export function createCommandTowerOverviewRoutes(tower: TowerEngine, sources: HealthSources) {
  return new OpenAPIHono<AppEnv>().openapi(overview, async (c) => {
    const [diagnostics, alerts, latest] = await Promise.all([
      diagnosticsReport(sources),
      alertsReport(sources),
      // Before any session was finished the latest flow is an empty preview: the overview says null.
      tower.latestFlow().then((flow) => (flow.session_id === null ? null : flow)),
    ]);
    const { metrics: _metrics, ...summary } = diagnostics;
    return c.json(
      { status: diagnostics.status, diagnostics: summary, alerts: { ...alerts }, latest_flow: latest },
      200,
    );
  });
}
