import type { EventCatalog } from "../../webhooks/events-catalog";

/**
 * Taxes: routes built on the first request under /taxes (src/resources.ts lists it), with the catalog of
 * every resource's event types (a rate change writes its orders' events).
 */
export const taxesResource = {
  prefix: "/taxes",
  tags: [{ name: "Taxes", description: "The company's tax rates, which its orders' invoices name" }],
  load: async (events: EventCatalog) => (await import(".")).taxesRoutes(events),
};
