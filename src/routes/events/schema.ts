import { z } from "@hono/zod-openapi";
import { timestamp } from "../../http/openapi";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { WEBHOOK_RETENTION_DAYS } from "../../webhooks/feed";

/** The public id of an event (`evt_` and 32 hex digits), as webhooks send it in `webhook-id`. */
export const EVENT_ID = /^evt_[0-9a-f]{32}$/;

/**
 * An event as the feed answers it: the webhook payload `{ id, type, created_at, data: { object } }`,
 * one shape per resource (its types and its object's schema, from the catalog).
 */
export async function eventSchema(catalog: EventCatalog) {
  const resources = new Map<string, { types: string[]; schema: EventCatalog[string]["schema"] }>();
  for (const [type, { resource, schema }] of Object.entries(catalog)) {
    const entry = resources.get(resource) ?? { types: [], schema };
    entry.types.push(type);
    resources.set(resource, entry);
  }
  const shapes = await Promise.all(
    [...resources.values()].map(async ({ types, schema }) =>
      z.object({
        id: z.string().openapi({
          description: "The event's id (also `webhook-id` of its deliveries)",
          example: "evt_6f1c0e8a2b9d4c1e8f7a6b5c4d3e2f10",
        }),
        type: z.enum(types as [string, ...string[]]),
        created_at: timestamp().openapi({ description: "When the change committed" }),
        data: z
          .object({ object: z.union([await schema(), z.null()]) })
          .openapi({ description: "`object`: the resource as the change left it (null if it is gone)" }),
      }),
    ),
  );
  return z.union(shapes as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]]).openapi("Event", {
    description: `A change event, exactly as its webhook deliveries send it (kept ${WEBHOOK_RETENTION_DAYS} days)`,
  });
}

export const EventsPaginationSchema = z
  .object({
    per_page: z.number().int(),
    next_cursor: z.string().nullable().openapi({
      description: "Pass as `cursor` (with the same filters) for the older events after this page; null on the last page",
    }),
  })
  .openapi("EventsPagination");
