import { z } from "@hono/zod-openapi";
import { ACTOR_TYPES } from "../db/schema/users";
import { type Router, schemaOnce, timestamp } from "../http/openapi";
import { EVENT_OBJECT_MAX_BYTES } from "./event-data";
import { eventComponent, type ResourceEvents } from "./events-catalog";

/*
 * The OpenAPI 3.1 `webhooks` section: one operation per event type of the resources' declarations, the
 * request a receiver gets. `data.object` is each resource's response schema, loaded with its routes.
 */

const signatureHeaders = () =>
  z.object({
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

/** `data.object_reference`: what an event carries instead of an object too large to send (src/webhooks/event-data.ts). */
const objectReferenceSchema = schemaOnce(() =>
  z
    .object({
      resource: z
        .string()
        .openapi({ description: "What the object is: the event's resource (`client`, `order`, `email_thread`)", example: "email_thread" }),
      id: z.string().openapi({ description: "The resource's id", example: "0b5e3c1a-6f2d-4e8b-9a7c-2d1e0f3b4a5c" }),
      url: z.string().openapi({
        description: "Path of the GET that answers the object now, relative to the API's origin (send your token)",
        example: "/api/v1/mail/email-threads/18c2f1a9b7e4d305?account_email=orders%40printshop.example",
      }),
      size_bytes: z.number().int().openapi({ description: "Size of the object's JSON when the event was written, in bytes" }),
    })
    .openapi("EventObjectReference", {
      description: `Sent instead of \`data.object\` when the object's JSON is over ${EVENT_OBJECT_MAX_BYTES / 1024} KiB`,
    }),
);

/** `actor`: who caused the event. */
const eventActorSchema = schemaOnce(() =>
  z
    .object({
      type: z.enum(ACTOR_TYPES).openapi({
        description:
          "`token` (an API token), `oauth_grant` (an app a user allowed), `user` (the settings area), `system` (the service itself)",
      }),
      id: z.string().nullable().openapi({ description: "The token's, grant's or user's id; null for `system`", example: "12" }),
    })
    .nullable()
    .openapi("EventActor", { description: "Who caused the event (null on events written before actors were recorded)" }),
);

const pascal = (type: string) => type.replace(/(^|[._])([a-z])/g, (_, __, ch: string) => ch.toUpperCase());

function eventSchema(type: string, events: ResourceEvents, object: z.ZodType, previous: z.ZodType | undefined) {
  // Null only for a payload rendered after its resource was gone (delivery or the events feed rendering a lost one).
  const objectMember = z.union([object, z.null()]).openapi({
    description: `The ${events.resource.replace("_", " ")} as ${events.returnedBy} return it (null if it no longer exists)`,
  });
  const previousMember = previous?.openapi({ description: "The attributes this change replaced, with the values they had before it" });
  const full = z.object({ object: objectMember, ...(previousMember && { previous_attributes: previousMember }) });
  const thin = z.object({ object_reference: objectReferenceSchema(), ...(previousMember && { previous_attributes: previousMember }) });
  return z
    .object({
      id: z.string().openapi({ description: "The event id, also sent as `webhook-id`", example: "evt_5f2b8c1e9a4d4f0bb0e7c3d2a1f6e9b8" }),
      type: z.literal(type),
      created_at: timestamp().openapi({ description: "When the change was committed" }),
      actor: eventActorSchema(),
      request_id: z.string().nullable().openapi({
        description: "The request that made the change (the `X-Request-Id` of its answer); null for the system's changes and older events",
        example: "0b5e3c1a-6f2d-4e8b-9a7c-2d1e0f3b4a5c",
      }),
      data: z.union([full, thin]).openapi({
        description:
          `Either \`object\` (the ${events.resource.replace("_", " ")}) or, when its JSON is over ${EVENT_OBJECT_MAX_BYTES / 1024} KiB, ` +
          "`object_reference` (where to read it): the member present tells them apart",
      }),
    })
    .openapi(eventComponent(type));
}

/** Adds every event type the resources declare to the document's `webhooks`, in their order. */
export async function registerWebhookEvents(registry: Router["openAPIRegistry"], declarations: readonly ResourceEvents[]): Promise<void> {
  const objects = await Promise.all(declarations.map((events) => events.schema()));
  for (const [i, events] of declarations.entries()) {
    for (const [type, description] of Object.entries(events.types)) {
      const previous = await events.previousAttributes?.[type]?.();
      registry.registerWebhook({
        method: "post",
        path: type,
        operationId: `on${pascal(type)}`,
        tags: ["Webhooks"],
        summary: description,
        description:
          `Sent to every enabled endpoint subscribed to \`${type}\` (or \`*\`), signed per Standard Webhooks. ` +
          "Answer 2xx within 10 s to acknowledge; any other answer, a redirect or a timeout is retried with backoff. " +
          "Events of one resource arrive in the order they happened.",
        security: [],
        request: {
          headers: signatureHeaders(),
          body: { required: true, content: { "application/json": { schema: eventSchema(type, events, objects[i], previous) } } },
        },
        responses: {
          200: { description: "Any 2xx answer acknowledges the event; the body is ignored" },
        },
      });
    }
  }
}
