import { z } from "@hono/zod-openapi";
import { ClientSchema } from "./domain/client";
import { type Router, timestamp } from "./http/openapi";
import { EmailThreadSchema } from "./routes/mail/schema";
import { OrderEnvelopeSchema } from "./routes/orders/schema";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, type WebhookEventType, type WebhookResource } from "./webhooks/events-catalog";

/*
 * The OpenAPI 3.1 `webhooks` section: one operation per event type, the request a receiver gets.
 * It lives beside app.ts because the payloads are several resources' response schemas.
 */

/** `data.object` of each resource's events: the object as the API returns it. */
const objects: Record<WebhookResource, { schema: z.ZodType; returnedBy: string }> = {
  client: { schema: ClientSchema, returnedBy: "POST /clients, PATCH /clients/{id} and GET /clients/{id}" },
  order: {
    schema: OrderEnvelopeSchema,
    returnedBy: "POST /orders and PATCH /orders/{id}: the project with its default invoice (totals included)",
  },
  email_thread: { schema: EmailThreadSchema, returnedBy: "PUT and GET /mail/email-threads/{legacyThreadId}" },
};

const signatureHeaders = z.object({
  "webhook-id": z.string().openapi({
    param: { name: "webhook-id", in: "header" },
    description: "The event id (`evt_…`): the same on every attempt and re-send, so a receiver can drop duplicates",
    example: "evt_5f2b8c1e9a4d4f0bb0e7c3d2a1f6e9b8",
  }),
  "webhook-timestamp": z.string().openapi({
    param: { name: "webhook-timestamp", in: "header" },
    description: "Unix time in seconds of this attempt; refuse messages far from your clock (replay protection)",
    example: "1795786620",
  }),
  "webhook-signature": z.string().openapi({
    param: { name: "webhook-signature", in: "header" },
    description:
      "Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64 part " +
      "of the endpoint's `whsec_` secret (Standard Webhooks). Two after a rotation (new and previous secret): accept either",
    example: "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
  }),
});

const pascal = (type: string) => type.replace(/(^|[._])([a-z])/g, (_, __, ch: string) => ch.toUpperCase());

function eventSchema(type: WebhookEventType) {
  const { resource } = WEBHOOK_EVENTS[type];
  return z
    .object({
      id: z.string().openapi({ description: "The event id, also sent as `webhook-id`", example: "evt_5f2b8c1e9a4d4f0bb0e7c3d2a1f6e9b8" }),
      type: z.literal(type),
      created_at: timestamp().openapi({ description: "When the change was committed" }),
      data: z.object({
        object: objects[resource].schema.openapi({
          description: `The ${resource.replace("_", " ")} as ${objects[resource].returnedBy} return it`,
        }),
      }),
    })
    .openapi(`${pascal(type)}Event`);
}

/** Adds every event type of the catalog to the document's `webhooks`. */
export function registerWebhookEvents(registry: Router["openAPIRegistry"]): void {
  for (const type of WEBHOOK_EVENT_TYPES) {
    registry.registerWebhook({
      method: "post",
      path: type,
      operationId: `on${pascal(type)}`,
      tags: ["Webhooks"],
      summary: WEBHOOK_EVENTS[type].description,
      description:
        `Sent to every enabled endpoint subscribed to \`${type}\` (or \`*\`), signed per Standard Webhooks. ` +
        "Answer 2xx within 10 s to acknowledge; any other answer, a redirect or a timeout is retried with backoff. " +
        "Events of one resource arrive in the order they happened.",
      security: [],
      request: {
        headers: signatureHeaders,
        body: { required: true, content: { "application/json": { schema: eventSchema(type) } } },
      },
      responses: {
        200: { description: "Any 2xx answer acknowledges the event; the body is ignored" },
      },
    });
  }
}
