import { z } from "@hono/zod-openapi";
import { schemaOnce } from "../../http/openapi";
import { budgetedCursorPagination } from "../../http/pagination";
import { type EventCatalog, eventComponent } from "../../webhooks/events-catalog";
import { EVENT_RETENTION_DAYS } from "../../webhooks/feed";

/** The public id of an event (`evt_` and 32 hex digits), as webhooks send it in `webhook-id`. */
export const EVENT_ID = /^evt_[0-9a-f]{32}$/;

/**
 * An event as the feed answers it: exactly a webhook's payload, so one of the event types' payload
 * schemas the document's `webhooks` declare (`ClientCreatedEvent` …), by reference. A thunk per
 * catalog: a response schema, so only the document's build calls it.
 */
export const eventSchema = (catalog: EventCatalog) =>
  schemaOnce(() =>
    z.unknown().openapi("Event", {
      oneOf: Object.keys(catalog).map((type) => ({ $ref: `#/components/schemas/${eventComponent(type)}` })),
      description: `A change event, exactly as its webhook deliveries send it (kept ${EVENT_RETENTION_DAYS} days)`,
    }),
  );

export const eventsPaginationSchema = budgetedCursorPagination("EventsPagination", "events", " of events");
