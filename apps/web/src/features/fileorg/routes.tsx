import { type AnyRoute, createRoute, lazyRouteComponent } from "@tanstack/react-router";
import { queryClient } from "../../queries.js";
import { parseReviewSearch } from "./model/review-search.js";
import { reviewRowsOptions } from "./review-rows.js";

/** The file organization part of the console: jobs, the review workbench, apply, inbox and preferences. */
export function fileorgRoutes<P extends AnyRoute>(parent: P) {
  const jobs = createRoute({
    getParentRoute: () => parent,
    path: "/files",
    component: lazyRouteComponent(() => import("./JobsPage.js"), "JobsPage"),
  });
  const review = createRoute({
    getParentRoute: () => parent,
    path: "/files/jobs/$jobId",
    validateSearch: (raw: Record<string, unknown>) => parseReviewSearch(raw),
    // The first rows are asked for into the query cache while the page's code loads (a hover's preload
    // warms it the same way); the loader never waits for them.
    // Only the validated fields: the router keeps a param validateSearch dropped (`?q=true` read as a boolean)
    // in `search`, and the page would then ask for other rows than the loader.
    loaderDeps: ({ search }) => parseReviewSearch(search),
    loader: ({ params, deps }) => {
      void queryClient.prefetchInfiniteQuery(reviewRowsOptions(params.jobId, deps));
    },
    component: lazyRouteComponent(() => import("./ReviewRoute.js"), "ReviewRoute"),
  });
  const apply = createRoute({
    getParentRoute: () => parent,
    path: "/files/jobs/$jobId/apply",
    component: lazyRouteComponent(() => import("./ApplyRoute.js"), "ApplyRoute"),
  });
  const inbox = createRoute({
    getParentRoute: () => parent,
    path: "/files/inbox",
    component: lazyRouteComponent(() => import("./InboxPage.js"), "InboxPage"),
  });
  const preferences = createRoute({
    getParentRoute: () => parent,
    path: "/files/preferences",
    component: lazyRouteComponent(() => import("./PreferencesPage.js"), "PreferencesPage"),
  });
  return [jobs, review, apply, inbox, preferences] as const;
}
