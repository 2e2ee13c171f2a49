import { lazyRoute, type RouteEntry } from "../../http/lazy-route";

/** The routes, in the router's order; each file is imported on its route's first request (http/lazy-route.ts). */
export const productsRoutes: readonly RouteEntry[] = [
  // /products/search first: it would otherwise match /products/{source}.
  lazyRoute("get", "/products/search", async () => (await import("./search")).registerSearchProducts),
  lazyRoute("get", "/products/{source}", async () => (await import("./get")).registerGetProduct),
];
