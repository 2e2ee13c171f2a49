import { API_PREFIX } from "../http/api-prefix";
import { utf8Bytes } from "../http/pagination";
import type { Db } from "../platform/db";

/*
 * What an event carries of its object (docs/webhooks.md#large-objects): the object itself, or, when its
 * JSON is larger than EVENT_OBJECT_MAX_BYTES, a reference to it (the resource, its id, the URL that
 * answers it, its size): Stripe's "thin events". Webhook payloads and the events feed are the same
 * stored bytes, so both carry the same form, and a page of events or a delivery stays small whatever
 * the resource holds (an email thread may be 8 MiB).
 */

/** An object whose JSON is larger than this (UTF-8 bytes) travels as `data.object_reference`. */
export const EVENT_OBJECT_MAX_BYTES = 256 * 1024;

/**
 * The most a stored payload holds: an object of EVENT_OBJECT_MAX_BYTES written compact comes back from
 * jsonb with a space after each `:` and `,` (at most 1.5 times as long), plus the envelope and the few
 * previous attributes. A stored payload above it was written before objects had a limit.
 */
export const EVENT_PAYLOAD_MAX_BYTES = 2 * EVENT_OBJECT_MAX_BYTES;

/**
 * The path (under the API's prefix) of the operation that answers a resource's object, from its id
 * and its JSON text (read only for an object too large to send, so at most once per such event).
 */
export type ObjectPath = (resourceId: string, objectJson: string) => string;

/** The JSON text of `data.object`, or of `data.object_reference` for a large object; null when the resource is gone. */
export type EventData = { object: string } | { reference: string } | null;

/** The event's data for an object's JSON text (undefined: the resource is gone): the object, or a reference to it. */
export function eventData(resource: string, path: ObjectPath, resourceId: string, objectJson: string | undefined): EventData {
  if (objectJson === undefined) return null;
  const size = utf8Bytes(objectJson);
  if (size <= EVENT_OBJECT_MAX_BYTES) return { object: objectJson };
  const url = `${API_PREFIX}${path(resourceId, objectJson)}`;
  return { reference: JSON.stringify({ resource, id: resourceId, url, size_bytes: size }) };
}

/** An event's data as its resource makes it now, for an event whose payload the change did not fill. */
export type EventRenderer = (db: Db, event: { companyId: number; type: string; resourceId: string }) => Promise<EventData>;
