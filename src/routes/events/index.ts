import type { z } from "@hono/zod-openapi";
import { lazyRoute, type RouteEntry } from "../../http/lazy-route";
import type { EventCatalog } from "../../webhooks/events-catalog";

/**
 * The routes, in the router's order, each file imported on its route's first request (http/lazy-route.ts),
 * for the catalog of event types (filters, payload schemas, renderers; one event schema thunk for both routes).
 */
export function eventsRoutes(catalog: EventCatalog): readonly RouteEntry[] {
  let built: Promise<() => z.ZodType> | undefined;
  const eventSchemaOnce = () => (built ??= import("./schema").then((m) => m.eventSchema(catalog)));
  return [
    lazyRoute("get", "/events", async () => {
      const [{ registerListEvents }, schema] = await Promise.all([import("./list"), eventSchemaOnce()]);
      return (api) => registerListEvents(api, catalog, schema);
    }),
    lazyRoute("get", "/events/{id}", async () => {
      const [{ registerGetEvent }, schema] = await Promise.all([import("./get"), eventSchemaOnce()]);
      return (api) => registerGetEvent(api, catalog, schema);
    }),
  ];
}
