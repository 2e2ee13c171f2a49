import type { RouteEntry } from "./http/lazy-route";
import type { Router } from "./http/openapi";
import { clientsResource } from "./routes/clients/resource";
import { eventsResource } from "./routes/events/resource";
import { healthResource } from "./routes/health/resource";
import { mailResource } from "./routes/mail/resource";
import { meResource } from "./routes/me/resource";
import { approvalsResource } from "./routes/orders/approvals/resource";
import { ordersResource } from "./routes/orders/resource";
import { productsResource } from "./routes/products/resource";
import { requestLogsResource } from "./routes/request-logs/resource";
import { statusesResource } from "./routes/statuses/resource";
import { taxesResource } from "./routes/taxes/resource";
import { webhookEndpointsResource } from "./routes/webhook-endpoints/resource";
import { type EventCatalog, eventCatalog, eventRenderer, type ResourceEvents, type WebhookRenderers } from "./webhooks/events-catalog";

/**
 * A resource, described once in its own folder (`routes/<resource>/resource.ts`): its path prefix and
 * its route table, whose routes are each built on their first request (and at build time, for the OpenAPI
 * document), never at start-up (docs/bundle.md#routes-built-per-resource-on-first-use); the webhook events it declares; the OpenAPI tags its
 * operations use; and its public paths, if it has routes that take no token (health). Or, for a router
 * that must answer at once, the router itself.
 */
export type Resource = { tags: readonly { name: string; description: string }[]; publicPaths?: readonly string[] } & (
  | { prefix: string; routes: (events: EventCatalog) => readonly RouteEntry[]; events?: ResourceEvents }
  | { router: Router }
);

/**
 * Every resource, in the OpenAPI document's order: the one list to add a resource to. The app mounts
 * them (app.ts), the Worker entry renders their events' objects (index.ts), and the event catalog and
 * the document's `webhooks` come from the events they declare.
 */
export const RESOURCES: readonly Resource[] = [
  meResource,
  clientsResource,
  ordersResource,
  approvalsResource,
  statusesResource,
  taxesResource,
  productsResource,
  mailResource,
  eventsResource,
  webhookEndpointsResource,
  requestLogsResource,
  healthResource,
];

const declared = RESOURCES.flatMap((r) => ("events" in r && r.events ? [r.events] : []));

/** The resources' event declarations, in the list's order. */
export const WEBHOOK_EVENT_DECLARATIONS: readonly ResourceEvents[] = declared;
/** Every webhook event type, the resource its `data.object` is, and what it means: what endpoints subscribe to. */
export const WEBHOOK_EVENTS: EventCatalog = eventCatalog(declared);
/** The event types in catalog order. */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS);
/** Each resource type's renderer (webhook delivery renders a payload the change did not fill). */
export const WEBHOOK_RENDERERS: WebhookRenderers = Object.fromEntries(declared.map((events) => [events.resource, eventRenderer(events)]));
