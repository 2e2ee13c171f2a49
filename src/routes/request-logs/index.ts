import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The request log's routes, in the router's order, each file imported on its route's first request (http/lazy-route.ts). */
export const requestLogsRoutes = (): readonly RouteEntry[] => [
  lazyRoute("get", "/request-logs", async () => (await import("./list")).registerListRequestLogs),
  lazyRoute("get", "/request-logs/{request_id}", async () => (await import("./get")).registerGetRequestLog),
];
