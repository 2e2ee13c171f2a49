import type { z } from "@hono/zod-openapi";
import type { Db } from "../platform/db";
import { type EventRenderer, eventData, type ObjectPath } from "./event-data";

/** Routes read the threshold here (they reach webhooks only through what a resource declares). */
export { EVENT_OBJECT_MAX_BYTES } from "./event-data";

/**
 * What a resource declares about its webhook events, in its own folder (`routes/<resource>/events.ts`),
 * and the catalog of every event type built from those declarations (`src/resources.ts` lists them).
 * Endpoints subscribe to the catalog's types (or `*`); the change layer writes events of a declaration,
 * delivery renders their objects with its renderer, and the OpenAPI `webhooks` section reads all of it.
 */

/** The JSON text of the object as the API returns it now; undefined when the resource is gone. */
export type WebhookRenderer = (db: Db, event: { companyId: number; type: string; resourceId: string }) => Promise<string | undefined>;
/** One renderer of event data per resource type (`resource_type` of an event). */
export type WebhookRenderers = Record<string, EventRenderer>;

export interface ResourceEvents {
  /** The events' `resource_type`: what their `data.object` is. */
  resource: string;
  /** The operations that answer the object as the events carry it (named in the OpenAPI `webhooks`). */
  returnedBy: string;
  /** Each event type (`<resource>.<what happened>`) and what it means, in the order the document lists them. */
  types: Readonly<Record<string, string>>;
  /** The schema of `data.object` (the resource's response schema), loaded with the resource's routes. */
  schema: () => Promise<z.ZodType>;
  /** The object as the API returns it now, for an event whose payload the change did not fill. */
  render: WebhookRenderer;
  /**
   * Where the object is read (the path of its GET under the API's prefix): the URL of the reference an
   * event carries instead of an object too large to send (src/webhooks/event-data.ts).
   */
  path: ObjectPath;
  /**
   * The types whose `data` also carries `previous_attributes` (what the change replaced, written with the
   * event), each with that member's schema, loaded with the resource's routes.
   */
  previousAttributes?: Readonly<Record<string, () => Promise<z.ZodType>>>;
}

/**
 * Every event type: the resource its `data.object` is, what it means, and its resource's object schema
 * and renderer; in the declarations' order.
 */
export type EventCatalog = Readonly<
  Record<
    string,
    {
      resource: string;
      description: string;
      schema: ResourceEvents["schema"];
      render: EventRenderer;
      path: ObjectPath;
      /** Its `data` carries `previous_attributes` (ResourceEvents.previousAttributes). */
      previous: boolean;
    }
  >
>;

/** A resource's renderer of event data: its object, or a reference to it when it is large. */
export const eventRenderer =
  (events: ResourceEvents): EventRenderer =>
  async (db, event) =>
    eventData(events.resource, events.path, event.resourceId, await events.render(db, event));

export function eventCatalog(declarations: readonly ResourceEvents[]): EventCatalog {
  return Object.fromEntries(
    declarations.flatMap((events) =>
      Object.entries(events.types).map(([type, description]) => [
        type,
        {
          resource: events.resource,
          description,
          schema: events.schema,
          render: eventRenderer(events),
          path: events.path,
          previous: Boolean(events.previousAttributes?.[type]),
        },
      ]),
    ),
  );
}

/** The OpenAPI component of an event type's payload (`order.status_changed` → `OrderStatusChangedEvent`), in `webhooks` and the events feed. */
export const eventComponent = (type: string) => `${type.replace(/(^|[._])([a-z])/g, (_, __, ch: string) => ch.toUpperCase())}Event`;

/** Subscribes an endpoint to every event type, including types added later. */
export const ALL_EVENTS = "*";
