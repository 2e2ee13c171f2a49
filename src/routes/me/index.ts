import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const meRoutes: readonly RouteEntry[] = [lazyRoute("get", "/me", async () => (await import("./get")).registerGetMe)];
