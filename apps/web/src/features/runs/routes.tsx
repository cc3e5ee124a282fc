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

/** The runs list's filters, all in the URL. */
export interface RunsSearch {
  status?: RunStatus;
  /** `template:<id>` or `flow:<id>`. */
  source?: string;
  /** `datetime-local` values (local time): created at or after `from`, before `to`. */
  from?: string;
  to?: string;
}

const SOURCE = /^(template|flow):.+$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** The runs list's search params, each kept only when well-formed. */
export function runsSearch(search: Record<string, unknown>): RunsSearch {
  const out: RunsSearch = {};
  const status = STATUSES.find((s) => s === search.status);
  if (status !== undefined) out.status = status;
  if (typeof search.source === "string" && SOURCE.test(search.source)) out.source = search.source;
  for (const key of ["from", "to"] as const) {
    const v = search[key];
    if (typeof v === "string" && LOCAL_TIME.test(v) && !Number.isNaN(Date.parse(v))) out[key] = v;
  }
  return out;
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
