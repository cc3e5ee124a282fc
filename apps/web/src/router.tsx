import { createRootRoute, createRoute, createRouter, Navigate } from "@tanstack/react-router";
import { comparisonRoutes } from "./features/comparison/routes.js";
import { fileorgRoutes } from "./features/fileorg/routes.js";
import { notifyRoutes } from "./features/notify/routes.js";
import { runsRoutes } from "./features/runs/routes.js";
import { Layout } from "./ui/Layout.js";
import { EmptyState } from "./ui/states.js";

export const rootRoute = createRootRoute({
  component: Layout,
  notFoundComponent: () => (
    <EmptyState title="No such page">
      <p>This address is not a page of the console. Use the navigation above.</p>
    </EmptyState>
  ),
});

const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: "/",
  component: () => <Navigate to="/runs" replace />,
});

/** One line per feature folder: each returns its routes under the root. */
const routeTree = rootRoute.addChildren([
  indexRoute,
  ...runsRoutes(rootRoute),
  ...comparisonRoutes(rootRoute),
  ...fileorgRoutes(rootRoute),
  ...notifyRoutes(rootRoute),
]);

export const router = createRouter({ routeTree, defaultPreload: "intent" });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
