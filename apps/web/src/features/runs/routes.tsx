import { type AnyRoute, createRoute, lazyRouteComponent } from "@tanstack/react-router";

const STATUSES = [
  "queued",
  "running",
  "waiting_otp",
  "waiting_user",
  "success",
  "failed",
  "cancelled",
] as const;
export type RunStatus = (typeof STATUSES)[number];

/** `?status=` of the runs list, kept only when it is a known status. */
export function runsSearch(search: Record<string, unknown>): { status?: RunStatus } {
  const status = STATUSES.find((s) => s === search.status);
  return status === undefined ? {} : { status };
}

/** The Runs part: `/runs`, `/runs/$runId`, `/flows`, `/flows/$flowId`, `/templates`, `/templates/$templateId`. */
export function runsRoutes<P extends AnyRoute>(parent: P) {
  const list = createRoute({
    getParentRoute: () => parent,
    path: "/runs",
    validateSearch: runsSearch,
    component: lazyRouteComponent(() => import("./RunsPage.js"), "RunsPage"),
  });
  const run = createRoute({
    getParentRoute: () => parent,
    path: "/runs/$runId",
    component: lazyRouteComponent(() => import("./RunPage.js"), "RunPage"),
  });
  const flows = createRoute({
    getParentRoute: () => parent,
    path: "/flows",
    component: lazyRouteComponent(() => import("./FlowsPage.js"), "FlowsPage"),
  });
  const flow = createRoute({
    getParentRoute: () => parent,
    path: "/flows/$flowId",
    component: lazyRouteComponent(() => import("./FlowsPage.js"), "FlowPage"),
  });
  const templates = createRoute({
    getParentRoute: () => parent,
    path: "/templates",
    component: lazyRouteComponent(() => import("./TemplatesPage.js"), "TemplatesPage"),
  });
  const template = createRoute({
    getParentRoute: () => parent,
    path: "/templates/$templateId",
    component: lazyRouteComponent(() => import("./TemplatesPage.js"), "TemplatePage"),
  });
  return [list, run, flows, flow, templates, template] as const;
}
