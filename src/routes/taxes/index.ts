import { lazyRoute, type RouteEntry } from "../../http/lazy-route";
import type { EventCatalog } from "../../webhooks/events-catalog";

/**
 * The taxes' routes, in the router's order, each file imported on its route's first request (http/lazy-route.ts);
 * a rate change writes its orders' `order.updated` events, named through the catalog.
 */
export const taxesRoutes = (events: EventCatalog): readonly RouteEntry[] => [
  lazyRoute("get", "/taxes", async () => (await import("./list")).registerListTaxes),
  lazyRoute("post", "/taxes", async () => (await import("./post")).registerCreateTax),
  lazyRoute("patch", "/taxes/{id}", async () => {
    const { registerPatchTax } = await import("./patch");
    return (api) => registerPatchTax(api, events);
  }),
  lazyRoute("delete", "/taxes/{id}", async () => (await import("./delete")).registerDeleteTax),
];
