import { lazyRoute, type RouteEntry } from "../../http/lazy-route";
import type { EventCatalog } from "../../webhooks/events-catalog";
import type { EndpointBodies } from "./schema";

/**
 * The routes, in the router's order, each file imported on its route's first request (http/lazy-route.ts),
 * for the catalog of event types endpoints may subscribe to (the create and patch bodies, built once).
 */
export function webhookEndpointsRoutes(events: EventCatalog): readonly RouteEntry[] {
  let built: Promise<EndpointBodies> | undefined;
  const bodies = () => (built ??= import("./schema").then((m) => m.endpointBodies(events)));
  return [
    lazyRoute("get", "/webhook-endpoints", async () => (await import("./list")).registerListWebhookEndpoints),
    lazyRoute("post", "/webhook-endpoints", async () => {
      const [{ registerCreateWebhookEndpoint }, schemas] = await Promise.all([import("./post"), bodies()]);
      return (api) => registerCreateWebhookEndpoint(api, schemas.create);
    }),
    lazyRoute("get", "/webhook-endpoints/{id}", async () => (await import("./get")).registerGetWebhookEndpoint),
    lazyRoute("patch", "/webhook-endpoints/{id}", async () => {
      const [{ registerPatchWebhookEndpoint }, schemas] = await Promise.all([import("./patch"), bodies()]);
      return (api) => registerPatchWebhookEndpoint(api, schemas.patch);
    }),
    lazyRoute("delete", "/webhook-endpoints/{id}", async () => (await import("./delete")).registerDeleteWebhookEndpoint),
    lazyRoute(
      "post",
      "/webhook-endpoints/{id}/rotate-secret",
      async () => (await import("./rotate-secret")).registerRotateWebhookEndpointSecret,
    ),
    lazyRoute("get", "/webhook-endpoints/{id}/deliveries", async () => (await import("./list-deliveries")).registerListWebhookDeliveries),
    lazyRoute(
      "post",
      "/webhook-endpoints/{id}/deliveries/{delivery_id}/retry",
      async () => (await import("./retry-delivery")).registerRetryWebhookDelivery,
    ),
  ];
}
