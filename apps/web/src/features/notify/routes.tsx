import { type AnyRoute, createRoute, lazyRouteComponent } from "@tanstack/react-router";

/** The Notifications part: `/notifications` (browser notifications and webhooks). */
export function notifyRoutes<P extends AnyRoute>(parent: P) {
  const page = createRoute({
    getParentRoute: () => parent,
    path: "/notifications",
    component: lazyRouteComponent(() => import("./NotificationsPage.js"), "NotificationsPage"),
  });
  return [page] as const;
}
