import type { EventCatalog } from "../../webhooks/events-catalog";

/**
 * Webhook endpoints: routes built on the first request under /webhook-endpoints (src/resources.ts lists
 * it), with the catalog of every resource's event types, which endpoints subscribe to.
 */
export const webhookEndpointsResource = {
  prefix: "/webhook-endpoints",
  tags: [
    {
      name: "Webhooks",
      description: "Endpoints that receive the company's change events, signed per Standard Webhooks; the events are under `webhooks`",
    },
  ],
  load: async (events: EventCatalog) => (await import(".")).webhookEndpointsRoutes(events),
};
