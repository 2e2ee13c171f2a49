import { webhookEndpointsRoutes } from ".";

/**
 * Webhook endpoints: routes each built on its first request (src/resources.ts lists
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
  routes: webhookEndpointsRoutes,
};
