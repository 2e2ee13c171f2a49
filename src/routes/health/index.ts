import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const healthRoutes: readonly RouteEntry[] = [
  lazyRoute("get", "/health", async () => (await import("./live")).registerLive),
  lazyRoute("get", "/health/ready", async () => (await import("./ready")).registerReady),
];
