import { type AnyRoute, createRoute, lazyRouteComponent } from "@tanstack/react-router";

/** The file organization part of the console (owned by web-b; this registers its pages under the root). */
export function fileorgRoutes<P extends AnyRoute>(parent: P) {
  const jobs = createRoute({
    getParentRoute: () => parent,
    path: "/files",
    component: lazyRouteComponent(() => import("./JobsPage.js"), "JobsPage"),
  });
  return [jobs] as const;
}
