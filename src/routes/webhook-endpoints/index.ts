import { createRouter } from "../../http/openapi";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { registerDeleteWebhookEndpoint } from "./delete";
import { registerGetWebhookEndpoint } from "./get";
import { registerListWebhookEndpoints } from "./list";
import { registerListWebhookDeliveries } from "./list-deliveries";
import { registerPatchWebhookEndpoint } from "./patch";
import { registerCreateWebhookEndpoint } from "./post";
import { registerRetryWebhookDelivery } from "./retry-delivery";
import { registerRotateWebhookEndpointSecret } from "./rotate-secret";
import { endpointBodies } from "./schema";

/** The routes, for the catalog of event types endpoints may subscribe to. */
export function webhookEndpointsApi(events: EventCatalog) {
  const api = createRouter();
  const bodies = endpointBodies(events);
  registerListWebhookEndpoints(api);
  registerCreateWebhookEndpoint(api, bodies.create);
  registerGetWebhookEndpoint(api);
  registerPatchWebhookEndpoint(api, bodies.patch);
  registerDeleteWebhookEndpoint(api);
  registerRotateWebhookEndpointSecret(api);
  registerListWebhookDeliveries(api);
  registerRetryWebhookDelivery(api);
  return api;
}
