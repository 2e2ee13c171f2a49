import { and, desc, eq, gt, inArray, lt, type SQL, sql } from "drizzle-orm";
import { webhookEvents } from "../db/schema/webhooks";
import { RawJson, stringifyWithRaw } from "../http/exact-json";
import type { Db } from "../platform/db";
import { EVENT_PAYLOAD_MAX_BYTES, type EventData, type EventRenderer } from "./event-data";
import { fillPayload, fillPayloads } from "./events";

/*
 * The events feed's reads (GET /events, GET /events/{id}): the company's events of the retention
 * period with their payloads, the same bytes webhook delivery sends. A change fills its events'
 * payloads right after its commit; an event whose payload is still missing (that step is still running,
 * or was lost) is rendered from the current state, as delivery and the cron pass do. A render is stored
 * only once the after-commit step has had time to fill the exact one, so the feed never stores a render
 * over it.
 */

/**
 * Events (the feed's reach, the audit trail of API changes) are kept this long, then dropped by the cron
 * pass; an event with a delivery left stays until the delivery is dropped, without showing in the feed.
 */
export const EVENT_RETENTION_DAYS = 90;
/** Finished deliveries (an endpoint's delivery log) are kept this long after they finished. */
export const DELIVERY_RETENTION_DAYS = 30;

/** A missing payload rendered by a read is stored only when the event is this old. */
export const STORE_RENDER_AFTER_SECONDS = 60;

const columns = {
  id: webhookEvents.id,
  eventId: webhookEvents.eventId,
  companyId: webhookEvents.companyId,
  type: webhookEvents.type,
  resourceType: webhookEvents.resourceType,
  resourceId: webhookEvents.resourceId,
  // A payload stored before objects had a size limit is left in the database (and rendered again, see payloadsOf).
  payload: sql<
    string | null
  >`case when octet_length(${webhookEvents.payload}::text) <= ${EVENT_PAYLOAD_MAX_BYTES} then ${webhookEvents.payload}::text end`,
  oversized: sql<boolean>`coalesce(octet_length(${webhookEvents.payload}::text) > ${EVENT_PAYLOAD_MAX_BYTES}, false)`,
  previousAttributes: sql<string | null>`${webhookEvents.previousAttributes}::text`,
  actorType: webhookEvents.actorType,
  actorId: webhookEvents.actorId,
  requestId: webhookEvents.requestId,
  createdAt: sql<string>`to_char(${webhookEvents.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  old: sql<boolean>`${webhookEvents.createdAt} < now() - make_interval(secs => ${STORE_RENDER_AFTER_SECONDS})`,
};
export type FeedRow = Awaited<ReturnType<typeof listEvents>>[number];

/** Only the retention period's events (older ones, kept while a delivery of theirs is pending, are not shown). */
const retained = (companyId: number) =>
  and(eq(webhookEvents.companyId, companyId), sql`${webhookEvents.createdAt} > now() - make_interval(days => ${EVENT_RETENTION_DAYS})`);

export interface FeedFilter {
  types?: string[];
  resourceId?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Who caused the events: the actor's type, and its id (with the type). */
  actorType?: string;
  actorId?: string;
  /** The request that caused them. */
  requestId?: string;
  /** Keyset: only events older than this one (its row id). */
  beforeId?: string;
}

/** The company's events matching `filter`, newest first, at most `limit`. One query. */
export function listEvents(db: Db, companyId: number, filter: FeedFilter, limit: number) {
  return db
    .select(columns)
    .from(webhookEvents)
    .where(
      and(
        retained(companyId),
        filter.types ? inArray(webhookEvents.type, filter.types) : undefined,
        filter.resourceId === undefined ? undefined : eq(webhookEvents.resourceId, filter.resourceId),
        filter.actorType === undefined ? undefined : eq(webhookEvents.actorType, filter.actorType),
        filter.actorId === undefined ? undefined : eq(webhookEvents.actorId, filter.actorId),
        filter.requestId === undefined ? undefined : eq(webhookEvents.requestId, filter.requestId),
        filter.createdAfter === undefined ? undefined : gt(webhookEvents.createdAt, sql`${filter.createdAfter}::timestamptz`),
        filter.createdBefore === undefined ? undefined : lt(webhookEvents.createdAt, sql`${filter.createdBefore}::timestamptz`),
        filter.beforeId === undefined ? undefined : lt(webhookEvents.id, sql`${filter.beforeId}::bigint`),
      ),
    )
    .orderBy(desc(webhookEvents.id))
    .limit(limit);
}

/** One event of the company by its public id (`evt_…`), or undefined. */
export async function findEvent(db: Db, companyId: number, eventId: string) {
  const [row] = await db
    .select(columns)
    .from(webhookEvents)
    .where(and(retained(companyId), eq(webhookEvents.eventId, eventId)))
    .limit(1);
  return row;
}

/** The delivered body for an event, as `fillPayload` writes it, from its data (the object's JSON text, or a reference's). */
const payloadText = (row: FeedRow, data: EventData) =>
  stringifyWithRaw({
    id: row.eventId,
    type: row.type,
    created_at: row.createdAt,
    actor: row.actorType === null ? null : { type: row.actorType, id: row.actorId },
    request_id: row.requestId,
    data: {
      ...(data && "reference" in data ? { object_reference: new RawJson(data.reference) } : { object: data && new RawJson(data.object) }),
      ...(row.previousAttributes === null ? {} : { previous_attributes: new RawJson(row.previousAttributes) }),
    },
  });

/**
 * Each event's payload text (the stored one, or rendered by its resource's renderer); renders of events
 * old enough are stored (a payload never changes once stored). A stored payload larger than any written
 * now (from before objects had a size limit) is rendered again, so the feed carries a reference instead.
 */
export async function payloadsOf(db: Db, rows: FeedRow[], renderer: (type: string) => EventRenderer | undefined): Promise<string[]> {
  return Promise.all(
    rows.map(async (row) => {
      if (row.payload !== null) return row.payload;
      const render = renderer(row.type);
      const data = render ? await render(db, { companyId: row.companyId, type: row.type, resourceId: row.resourceId }) : null;
      return row.old && !row.oversized ? fillPayload(db, row.id, data) : payloadText(row, data);
    }),
  );
}

/** Events rendered per cron pass at most (a backlog goes in later passes). */
const RENDER_LIMIT = 500;

/**
 * The cron pass's fallback: events whose payload is still missing a minute after they were written (the
 * after-commit step was lost) are rendered from the current state and stored, all in one statement.
 */
export async function renderLostPayloads(db: Db, renderer: (resourceType: string) => EventRenderer | undefined): Promise<number> {
  const rows = await db
    .select({ ...columns, old: sql<boolean>`true` })
    .from(webhookEvents)
    .where(
      sql`${webhookEvents.payload} is null and ${webhookEvents.createdAt} < now() - make_interval(secs => ${STORE_RENDER_AFTER_SECONDS})` as SQL,
    )
    .orderBy(webhookEvents.id)
    .limit(RENDER_LIMIT);
  const objects = await Promise.all(
    rows.map(async (row) => {
      const render = renderer(row.resourceType);
      const data = render ? await render(db, { companyId: row.companyId, type: row.type, resourceId: row.resourceId }) : null;
      return { event: row.id, data };
    }),
  );
  await fillPayloads(db, objects);
  return rows.length;
}
