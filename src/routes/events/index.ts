import { createRouter } from "../../http/openapi";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { registerGetEvent } from "./get";
import { registerListEvents } from "./list";
import { eventSchema } from "./schema";

/** The routes, for the catalog of event types (filters, payload schemas, renderers). */
export function eventsApi(catalog: EventCatalog) {
  const api = createRouter();
  const schema = eventSchema(catalog);
  registerListEvents(api, catalog, schema);
  registerGetEvent(api, catalog, schema);
  return api;
}
