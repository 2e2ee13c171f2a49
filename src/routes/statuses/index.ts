import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const statusesRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/statuses", async () => (await import("./list")).registerListStatuses),
  lazyRoute("post", "/statuses", async () => (await import("./post")).registerCreateStatus),
  lazyRoute("patch", "/statuses/{id}", async () => (await import("./patch")).registerPatchStatus),
  lazyRoute("delete", "/statuses/{id}", async () => (await import("./delete")).registerDeleteStatus),
];
