import { type SQL, sql } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../db/schema/webhooks";
import type { Db } from "../platform/db";
import type { Bindings } from "../platform/env";
import type { Logger } from "../platform/logger";
import { insertFrom, rowsOf } from "../platform/sql-kit";
import { enqueueWebhookDeliveries } from "./enqueue";
import type { EventData } from "./event-data";

/**
 * The writers' side of webhooks: a change writes its event, and the event's deliveries to the company's
 * subscribed endpoints, in the change's own statement; after commit the event's payload is filled from
 * the response and the deliveries go to the queue.
 */

export interface WebhookEventRow {
  /** A value, or SQL (a prepared statement's placeholder). */
  companyId: number | SQL;
  type: string;
  resourceType: string;
  /** The resource's id (text): a value, or SQL reading another CTE of the statement. */
  resourceId: string | number | SQL;
  /** What the change replaced, as SQL (jsonb) over the event's row: the payload's `data.previous_attributes`. */
  previousAttributes?: SQL;
  /** Who caused it and in which request (the payload's `actor` and `request_id`): values, or SQL (a prepared statement's placeholders). */
  origin: OriginSql;
}

/** An Origin as a statement's values: each a value, or SQL (a placeholder). */
export interface OriginSql {
  actorType: string | SQL;
  actorId: string | null | SQL;
  requestId: string | null | SQL;
}

/** What a write's statement answers about each event it wrote: the event row, its type and resource, its deliveries. */
export interface WrittenEvent {
  event: number;
  type: string;
  resourceId: string;
  deliveries: number[];
}

/**
 * The event as CTEs of a single-statement write: `webhook_event` inserts it once per row of `from`
 * (none when `from` is empty, so it lands only with the change), `webhook_fanout` one delivery per
 * enabled endpoint of the company whose `events` hold the type or `*`. Put `from` on the write's own
 * CTE (its RETURNING): the change then runs, taking its row locks, before the event's id is drawn, so
 * event ids follow the order in which writes to one resource commit. `written` is the column to select
 * (every event written, in id order); `suffix` tells apart several events' CTEs in one statement.
 */
export function webhookEventCte(db: Db, row: WebhookEventRow, from: SQL, suffix = "") {
  const resourceId = typeof row.resourceId === "object" ? sql`(${row.resourceId})::text` : String(row.resourceId);
  const event = insertFrom(
    db,
    `webhook_event${suffix}`,
    webhookEvents,
    {
      companyId: row.companyId,
      type: row.type,
      resourceType: row.resourceType,
      resourceId,
      previousAttributes: row.previousAttributes,
      actorType: row.origin.actorType,
      actorId: row.origin.actorId,
      requestId: row.origin.requestId,
    },
    from,
  );
  const fanout = db.$with(`webhook_fanout${suffix}`, { id: webhookDeliveries.id, eventId: webhookDeliveries.eventId }).as(
    sql`insert into ${webhookDeliveries} (company_id, endpoint_id, event_id, resource_type, resource_id)
        select e.company_id, ep.id, e.id, e.resource_type, e.resource_id
        from ${event} e
        join ${webhookEndpoints} ep on ep.company_id = e.company_id and ep.enabled and (e.type = any(ep.events) or '*' = any(ep.events))
        order by e.id, ep.id
        returning id, event_id`,
  );
  const written = sql<
    WrittenEvent[]
  >`(select coalesce(json_agg(json_build_object('event', e.id, 'type', e.type, 'resourceId', e.resource_id,
      'deliveries', coalesce((select json_agg(d.id order by d.id) from ${fanout} d where d.event_id = e.id), '[]'::json)) order by e.id), '[]'::json)
      from ${event} e)`;
  return { ctes: [event, fanout] as const, written };
}

/**
 * The delivered body `{ id, type, created_at, actor, request_id, data: { object | object_reference, previous_attributes? } }`
 * for an event row, from the object's JSON text (jsonb keeps its numbers exact), or a reference's when
 * the object is large (src/webhooks/event-data.ts), and the row's previous attributes (only an event
 * that has them carries the member). For `update webhook_events … where id = …`.
 */
const payloadSql = (objectJson: SQL | string | null, referenceJson: SQL | string | null) =>
  sql`jsonb_build_object('id', event_id, 'type', type,
      'created_at', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'actor', case when actor_type is null then null else jsonb_build_object('type', actor_type, 'id', actor_id) end,
      'request_id', request_id,
      'data', case when ${referenceJson}::text is null then jsonb_build_object('object', ${objectJson}::jsonb)
                   else jsonb_build_object('object_reference', ${referenceJson}::jsonb) end
        || case when previous_attributes is null then '{}'::jsonb else jsonb_build_object('previous_attributes', previous_attributes) end)`;

const objectOf = (data: EventData) => (data && "object" in data ? data.object : null);
const referenceOf = (data: EventData) => (data && "reference" in data ? data.reference : null);

/**
 * Sets an event's payload unless it has one (a payload never changes once written); answers the
 * stored payload as text, the exact bytes every attempt sends.
 */
export async function fillPayload(db: Db, eventId: number, data: EventData): Promise<string> {
  const [row] = rowsOf<{ payload: string }>(
    await db.execute(sql`
      with filled as (
        update ${webhookEvents} set payload = ${payloadSql(objectOf(data), referenceOf(data))}
        where id = ${eventId} and payload is null
        returning payload::text as payload)
      select coalesce((select payload from filled), (select payload::text from ${webhookEvents} where id = ${eventId})) as payload`),
  );
  return row.payload;
}

/** Sets the payloads of many events in one statement, each unless it has one (a change of many rows, the cron's renders). */
export async function fillPayloads(db: Db, objects: { event: number; data: EventData }[]): Promise<void> {
  if (!objects.length) return;
  const records = objects.map(({ event, data }) => ({ event, object: objectOf(data), reference: referenceOf(data) }));
  await db.execute(sql`
    update ${webhookEvents} set payload = ${payloadSql(sql`o.object`, sql`o.reference`)}
    from jsonb_to_recordset(${JSON.stringify(records)}::jsonb) as o(event bigint, object text, reference text)
    where ${webhookEvents.id} = o.event and ${webhookEvents.payload} is null`);
}

/** The parts of a request's context the after-commit step uses. */
export interface PublishContext {
  env: Bindings;
  get<K extends keyof PublishVariables>(key: K): PublishVariables[K];
}
type PublishVariables = { db: Db; defer: (task: Promise<unknown>) => void; logger: Logger };

/** An event's data, made after the response: from the response's own body, or rendered from the current rows. */
export type WebhookObject = (event: WrittenEvent) => EventData | undefined | Promise<EventData | undefined>;

/**
 * After the commit that wrote the events: fills every event's payload with its object (when the change
 * gives one), all in one statement, whether or not an endpoint subscribed (the events feed shows every
 * event), then hands the deliveries to the queue, after the response (waitUntil). If this step is lost,
 * or there is no object, the cron pass (and the feed, and delivery) renders the payload from the current
 * state, and the cron pass sends the deliveries.
 */
export function publishWebhookEvents(c: PublishContext, written: WrittenEvent[], object?: WebhookObject): void {
  if (!written.length) return;
  const db = c.get("db");
  const defer = c.get("defer");
  const logger = c.get("logger");
  const deliveries = written.flatMap((e) => e.deliveries);
  defer(
    (async () => {
      if (object) {
        try {
          const objects = await Promise.all(written.map(async (e) => ({ event: e.event, data: (await object(e)) ?? null })));
          await fillPayloads(db, objects);
        } catch (error) {
          // The cron pass (or delivery, or the feed) renders them from the current state instead.
          logger.warn("webhook payloads not filled after commit", { events: written.map((e) => e.event), error });
        }
      }
      if (deliveries.length) await enqueueWebhookDeliveries(c.env, deliveries);
    })(),
  );
}
