/**
 * Every webhook event type, the resource its `data.object` is, and what it means. Endpoints subscribe
 * to these names (or `*`); the event writer, the OpenAPI `webhooks` and the docs read the same list.
 */
export const WEBHOOK_EVENTS = {
  "client.created": { resource: "client", description: "A client was created" },
  "client.updated": { resource: "client", description: "A client's fields changed" },
  "client.deleted": { resource: "client", description: "A client was soft-deleted (`deleted_at` set)" },
  "order.created": { resource: "order", description: "An order (a project with its default invoice) was created" },
  "order.updated": {
    resource: "order",
    description: "An order changed: its fields, or its contents (line items, payments, artworks) and so its totals",
  },
  "order.deleted": { resource: "order", description: "An order was soft-deleted" },
  "email_thread.upserted": { resource: "email_thread", description: "An email thread was stored or replaced (PUT)" },
} as const;

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export type WebhookResource = (typeof WEBHOOK_EVENTS)[WebhookEventType]["resource"];

/** The event types in catalog order. */
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as [WebhookEventType, ...WebhookEventType[]];

/** Subscribes an endpoint to every event type, including types added later. */
export const ALL_EVENTS = "*";
