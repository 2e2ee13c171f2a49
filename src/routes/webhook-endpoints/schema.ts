import { z } from "@hono/zod-openapi";
import type { webhookDeliveries, webhookEndpoints } from "../../db/schema/webhooks";
import { columnFields, iso, schemaOnce, text, timestamp, wireFields } from "../../http/openapi";
import { ALL_EVENTS, type EventCatalog } from "../../webhooks/events-catalog";
import { MAX_WEBHOOK_URL_LENGTH } from "../../webhooks/url";

/** The bodies that name event types, for the catalog of every resource's event types. */
export function endpointBodies(catalog: EventCatalog) {
  const url = z
    .string()
    .trim()
    .min(1, "url must not be blank")
    .max(MAX_WEBHOOK_URL_LENGTH)
    .openapi({
      description:
        "Where events are POSTed: an https:// URL of a public host (no credentials, no private, loopback or link-local address, " +
        "no localhost / *.local / *.internal name); see the webhooks resource docs",
      example: "https://hooks.example.com/crm",
    });

  const description = text(500).nullable().optional().openapi({ example: "ERP sync" });

  const types = Object.keys(catalog) as [string, ...string[]];
  const eventName = z.enum([...types, ALL_EVENTS], {
    error: `Unknown event type; use one of ${types.join(", ")}, or ${ALL_EVENTS} for all`,
  });

  const events = z
    .array(eventName)
    .min(1, "Subscribe to at least one event type (or * for all)")
    .max(types.length + 1)
    .refine((list) => !list.includes(ALL_EVENTS) || list.length === 1, {
      message: `${ALL_EVENTS} already covers every event type: send it alone`,
    })
    // Duplicates are harmless: each type is stored once.
    .transform((list) => [...new Set(list)])
    .openapi({
      description: `Event types to deliver, or \`["${ALL_EVENTS}"]\` for every type (types added later included)`,
      example: ["order.created", "order.updated"],
    });

  const create = z.strictObject({ url, events, description }).openapi("WebhookEndpointCreate");

  const patch = z
    .strictObject({
      url: url.optional(),
      events: events.optional(),
      description,
      enabled: z
        .boolean()
        .optional()
        .openapi({
          description:
            "`false` stops deliveries to the endpoint; `true` re-enables a disabled endpoint and clears its disabled reason and " +
            "failure streak",
        }),
    })
    .refine((b) => Object.keys(b).length > 0, { message: "Send at least one field to change" })
    .openapi("WebhookEndpointPatch");
  return { create, patch };
}
export type EndpointBodies = ReturnType<typeof endpointBodies>;

export const webhookEndpointSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 3 }),
      url: z.string().openapi({ example: "https://hooks.example.com/crm" }),
      description: z.string().nullable(),
      events: z.array(z.string()).openapi({ example: ["order.created", "order.updated"] }),
      enabled: z.boolean(),
      disabled_reason: z.string().nullable().openapi({
        description: "Why the endpoint is disabled: a long failure streak (set by delivery) or a PATCH with `enabled: false`",
      }),
      disabled_at: timestamp().nullable(),
      failure_streak: z.number().int().openapi({ description: "Failed attempts in a row since the last successful one" }),
      failing_since: timestamp().nullable().openapi({ description: "When the current failure streak began" }),
      previous_secret_expires_at: timestamp()
        .nullable()
        .openapi({ description: "After a secret rotation: until when the previous secret still signs beside the new one" }),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("WebhookEndpoint"),
);

export const webhookEndpointEnvelopeSchema = schemaOnce(() =>
  z.object({ webhook_endpoint: webhookEndpointSchema() }).openapi("WebhookEndpointEnvelope"),
);

export const webhookEndpointWithSecretSchema = schemaOnce(() =>
  z
    .object({
      webhook_endpoint: webhookEndpointSchema(),
      secret: z.string().openapi({
        description:
          "The signing secret (Standard Webhooks: `whsec_` + base64). Shown only in this answer: store it now; " +
          "a lost secret is replaced with rotate-secret",
        example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      }),
    })
    .openapi("WebhookEndpointWithSecret"),
);

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export function serializeEndpoint(row: EndpointRow): z.infer<ReturnType<typeof webhookEndpointSchema>> {
  const previousLive = row.previousSecretExpiresAt !== null && new Date(row.previousSecretExpiresAt).getTime() > Date.now();
  return {
    ...wireFields(row, [
      "id",
      "url",
      "description",
      "events",
      "enabled",
      "disabledReason",
      "disabledAt",
      "failureStreak",
      "createdAt",
      "updatedAt",
    ]),
    failing_since: iso(row.failingSince),
    previous_secret_expires_at: previousLive ? iso(row.previousSecretExpiresAt) : null,
  };
}

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const webhookDeliverySchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 981 }),
      event_id: z.string().openapi({
        description: "The event's id, sent as `webhook-id` (the same on every attempt)",
        example: "evt_5f2b8c1e9a4d4f0bb0e7c3d2a1f6e9b8",
      }),
      event_type: z.string().openapi({ example: "order.updated" }),
      status: z.enum(DELIVERY_STATUSES).openapi({
        description: "`pending`: waiting for its first attempt or a retry; `succeeded`: a 2xx answer; `failed`: given up",
      }),
      attempts: z.number().int().openapi({ description: "Attempts made since the delivery was created or last re-sent" }),
      next_attempt_at: timestamp().nullable().openapi({ description: "When a pending delivery is next tried; null otherwise" }),
      last_attempt_at: timestamp().nullable(),
      last_response_status: z.number().int().nullable().openapi({ description: "HTTP status of the last attempt's answer" }),
      last_response_body: z.string().nullable().openapi({ description: "The first bytes of the last answer's body" }),
      last_error: z.string().nullable().openapi({ description: "Why the last attempt failed (timeout, network error, status)" }),
      created_at: timestamp(),
      succeeded_at: timestamp().nullable(),
    })
    .openapi("WebhookDelivery"),
);

export const webhookDeliveryEnvelopeSchema = schemaOnce(() =>
  z.object({ webhook_delivery: webhookDeliverySchema() }).openapi("WebhookDeliveryEnvelope"),
);

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export function serializeDelivery(
  row: DeliveryRow,
  event: { eventId: string; type: string },
): z.infer<ReturnType<typeof webhookDeliverySchema>> {
  return {
    id: row.id,
    event_id: event.eventId,
    event_type: event.type,
    status: row.status as (typeof DELIVERY_STATUSES)[number],
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    ...wireFields(row, ["lastAttemptAt", "lastResponseStatus", "lastResponseBody", "lastError", "createdAt", "succeededAt"]),
  };
}

/** Wire fields → columns, for the fields present in the body (enabled is handled by the route). */
export const endpointColumns = (body: { url?: string; events?: string[]; description?: string | null }) =>
  columnFields(body, ["url", "events", "description"]);
