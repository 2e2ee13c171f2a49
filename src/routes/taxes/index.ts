import { createRouter } from "../../http/openapi";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { registerDeleteTax } from "./delete";
import { registerListTaxes } from "./list";
import { registerPatchTax } from "./patch";
import { registerCreateTax } from "./post";

/** The taxes' routes; a rate change writes its orders' `order.updated` events, named through the catalog. */
export function taxesApi(events: EventCatalog) {
  const api = createRouter();
  registerListTaxes(api);
  registerCreateTax(api);
  registerPatchTax(api, events);
  registerDeleteTax(api);
  return api;
}
