import { type SQL, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { workerConfig } from "../platform/config";
import { createDb, type Db } from "../platform/db";
import type { Bindings, WebhookMessage } from "../platform/env";
import { createLogger, type Logger } from "../platform/logger";
import { crashText, DEAD_LETTER_RETRY_SECONDS, isDeadLetterQueue, messageRowIds } from "../platform/queue";
import { rowsOf } from "../platform/sql-kit";
import { type DeliveryContext, deliver, renderPayload } from "./deliver";
import { enqueueWebhookDeliveries } from "./enqueue";
import type { WebhookRenderers } from "./events-catalog";
import { DELIVERY_RETENTION_DAYS, EVENT_RETENTION_DAYS, renderLostPayloads } from "./feed";

/** The webhook queues' names start with this (wrangler.toml); the dead-letter queue's end in `-dlq`. */
export const WEBHOOK_QUEUE_PREFIX = "crm-webhooks";
export const isWebhookQueue = (queue: string) => queue.startsWith(WEBHOOK_QUEUE_PREFIX);

/** Deliveries attempted at once per batch (each waits on a receiver for up to the attempt timeout). */
const CONCURRENT_DELIVERIES = 5;
/** Pending deliveries not handed to the queue for this long (and due) are sent again by the cron pass. */
export const STALE_MINUTES = 5;
const REENQUEUE_LIMIT = 1000;

/**
 * The Worker's `queue` handler for the webhook queue and its dead-letter queue. Every statement is a
 * single one (claims, outcomes), so SQL over HTTP serves; nothing holds a transaction across a send.
 */
export async function handleWebhookQueue(batch: MessageBatch<WebhookMessage>, env: Bindings, renderers: WebhookRenderers): Promise<void> {
  // A wrong setting fails the invocation before any database work (the queue retries the batch).
  const config = workerConfig(env);
  const logger = createLogger({ request_id: crypto.randomUUID(), queue: batch.queue, messages: batch.messages.length });
  const db = createDb(env);
  const ids = messageRowIds(batch, env.DATABASE_URL, (body) => body?.delivery_id, logger, "webhook");
  if (isDeadLetterQueue(batch.queue)) {
    return markDeadLettered(env, db, ids, logger).catch((e) => {
      // The database may be what failed: the dead-letter queue tries again later (the cron pass is the backstop).
      logger.error("webhook dead-letter marking failed", { error: crashText(e) });
      for (const message of batch.messages) message.retry({ delaySeconds: DEAD_LETTER_RETRY_SECONDS });
    });
  }

  const ctx: DeliveryContext = { db, config, logger, renderers };
  const limit = pLimit(CONCURRENT_DELIVERIES);
  await Promise.all(
    [...ids].map(([message, id]) =>
      limit(async () => {
        try {
          const result = await deliver(ctx, id);
          if (result.retryInSeconds !== undefined) await enqueueWebhookDeliveries(env, [id], result.retryInSeconds);
          if (result.next !== undefined) await enqueueWebhookDeliveries(env, [result.next]);
          message.ack();
        } catch (e) {
          // Unexpected (database down, a bug): the claim is released and the queue retries the message,
          // with the attempts' backoff; past max_retries it goes to the dead-letter queue.
          const error = crashText(e);
          logger.error("webhook delivery crashed", { delivery_id: id, attempt: message.attempts, error });
          const schedule = config.WEBHOOK_RETRY_SCHEDULE;
          const delaySeconds = schedule.length ? schedule[Math.min(message.attempts, schedule.length) - 1] : 0;
          // Handed off again for when its message comes back (the cron pass does not send it before).
          await db
            .execute(sql`update webhook_deliveries set claimed_until = null, updated_at = now(),
              enqueued_at = now() + make_interval(secs => ${delaySeconds}),
              last_error = ${`delivery crashed: ${error.slice(0, 500)}`} where id = ${id}`)
            .catch(() => {}); // the database may be what failed; the log line has it
          message.retry({ delaySeconds });
        }
      }),
    ),
  );
}

/**
 * Messages the queue gave up on: their deliveries fail with the reason (still listed, never silently
 * gone), and the next delivery of each one's resource to its endpoint is sent.
 */
async function markDeadLettered(env: Bindings, db: Db, ids: Map<Message<WebhookMessage>, number>, logger: Logger) {
  const deliveryIds = [...ids.values()];
  if (deliveryIds.length) {
    const rows = rowsOf<{ id: string; next: string | null }>(
      await db.execute(sql`
        with dead as (
          update webhook_deliveries set status = 'failed', claimed_until = null, updated_at = now(),
            last_error = coalesce(last_error || ' — ', '') || 'gave up: the queue moved the message to the dead-letter queue'
          where id = any(${`{${deliveryIds.join(",")}}`}::bigint[]) and status = 'pending'
          returning id, endpoint_id, resource_type, resource_id)
        select d.id, (select n.id from webhook_deliveries n
          where n.endpoint_id = d.endpoint_id and n.resource_type = d.resource_type and n.resource_id = d.resource_id
            and n.status = 'pending' and n.id > d.id order by n.id limit 1) as next
        from dead d`),
    );
    if (rows.length) logger.error("webhook deliveries dead-lettered", { delivery_ids: rows.map((r) => Number(r.id)) });
    const next = rows.filter((r) => r.next !== null && !deliveryIds.includes(Number(r.next))).map((r) => Number(r.next));
    await enqueueWebhookDeliveries(env, [...new Set(next)]);
  }
  for (const message of ids.keys()) message.ack();
}

/**
 * Marks handed off (in the same statement, so overlapping callers never send one twice) and returns the
 * due pending deliveries of enabled endpoints that are not claimed, each resource's first only (the rest
 * follow it): those not handed to the queue for `staleMinutes`, optionally of one endpoint.
 */
async function handOffWaiting(db: Db, { staleMinutes, endpointId }: { staleMinutes: number; endpointId?: number }) {
  return rowsOf<{ id: string; event_id: string }>(
    await db.execute(sql`
      update webhook_deliveries d set enqueued_at = now(), updated_at = now()
      where d.id in (
        select s.id from webhook_deliveries s
        join webhook_endpoints ep on ep.id = s.endpoint_id and ep.enabled
        where s.status = 'pending' and s.next_attempt_at <= now()
          and (s.claimed_until is null or s.claimed_until < now())
          and coalesce(s.enqueued_at, s.created_at) <= now() - make_interval(mins => ${staleMinutes})
          ${endpointId === undefined ? sql`` : sql`and s.endpoint_id = ${endpointId}`}
          and not exists (
            select 1 from webhook_deliveries p
            where p.endpoint_id = s.endpoint_id and p.resource_type = s.resource_type and p.resource_id = s.resource_id
              and p.status = 'pending' and p.id < s.id)
        order by s.id
        limit ${REENQUEUE_LIMIT}
        for update of s skip locked)
      returning d.id, d.event_id`),
  );
}

/**
 * After an endpoint is enabled again: its waiting deliveries go to the queue at once instead of at the
 * next cron pass (the consumer renders any missing payload). Runs after the response (waitUntil).
 */
export async function resumeEndpointDeliveries(db: Db, env: Bindings, endpointId: number): Promise<void> {
  if (!env.WEBHOOK_QUEUE) return;
  const rows = await handOffWaiting(db, { staleMinutes: 0, endpointId });
  await enqueueWebhookDeliveries(
    env,
    rows.map((r) => Number(r.id)),
  );
}

export { DELIVERY_RETENTION_DAYS, EVENT_RETENTION_DAYS };

/** Rows dropped per statement, so each stays short; a pass runs up to PURGE_ROUNDS of them per table. */
const PURGE_LIMIT = 5000;
const PURGE_ROUNDS = 10;

/**
 * Drops deliveries finished more than DELIVERY_RETENTION_DAYS ago, then events older than
 * EVENT_RETENTION_DAYS with no delivery left (pending deliveries and their events stay however old). Oldest first, in the primary key's order; a
 * backlog beyond PURGE_ROUNDS × PURGE_LIMIT per table goes in later passes.
 */
export async function purgeOldWebhookRows(db: Db): Promise<{ deliveries: number; events: number }> {
  const finished = sql`now() - make_interval(days => ${DELIVERY_RETENTION_DAYS})`;
  const age = sql`now() - make_interval(days => ${EVENT_RETENTION_DAYS})`;
  const rounds = async (statement: SQL) => {
    let total = 0;
    for (let round = 0; round < PURGE_ROUNDS; round++) {
      const n = rowsOf<{ id: string }>(await db.execute(statement)).length;
      total += n;
      if (n < PURGE_LIMIT) break;
    }
    return total;
  };
  const deliveries = await rounds(sql`
    delete from webhook_deliveries where id in (
      select id from webhook_deliveries where status <> 'pending' and updated_at < ${finished} order by id limit ${PURGE_LIMIT})
    returning id`);
  // Oldest first through the created_at index; events kept for a pending delivery are skipped over.
  const events = await rounds(sql`
    delete from webhook_events e where e.id in (
      select o.id from webhook_events o where o.created_at < ${age}
        and not exists (select 1 from webhook_deliveries d where d.event_id = o.id)
      order by o.created_at limit ${PURGE_LIMIT})
    returning id`);
  return { deliveries, events };
}

/**
 * The cron pass: due pending deliveries of enabled endpoints that are not claimed and were not handed to
 * the queue for a few minutes (a crash between commit and send, a lost message, a due time beyond the
 * queue's longest delay, an endpoint enabled again) go to the queue again, each resource's first only
 * (the rest follow it). Marking them handed off in the same statement keeps overlapping passes from
 * sending one twice. Missing payloads of their events are rendered first. Then rows past the retention go.
 */
export async function handleWebhookCron(env: Bindings, renderers: WebhookRenderers): Promise<void> {
  const logger = createLogger({ request_id: crypto.randomUUID(), job: "webhook-cron" });
  if (!env.WEBHOOK_QUEUE) return logger.warn("webhook cron pass skipped: no WEBHOOK_QUEUE binding");
  const db = createDb(env);
  const rows = await handOffWaiting(db, { staleMinutes: STALE_MINUTES });
  const eventIds = [...new Set(rows.map((r) => Number(r.event_id)))];
  let rendered = 0;
  if (eventIds.length) {
    const missing = rowsOf<{ id: string; company_id: number; type: string; resource_type: string; resource_id: string }>(
      await db.execute(sql`
        select id, company_id, type, resource_type, resource_id from webhook_events
        where id = any(${`{${eventIds.join(",")}}`}::bigint[]) and payload is null`),
    );
    for (const e of missing) {
      await renderPayload(
        { db, renderers },
        { id: Number(e.id), companyId: e.company_id, type: e.type, resourceType: e.resource_type, resourceId: e.resource_id },
      );
      rendered++;
    }
  }
  const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  await enqueueWebhookDeliveries(env, ids);
  // Every other event whose after-commit step was lost gets its payload too (the events feed shows them all).
  rendered += await renderLostPayloads(db, (resourceType) => renderers[resourceType]);
  const purged = await purgeOldWebhookRows(db);
  logger.info("webhook cron pass", { reenqueued: ids.length, payloads_rendered: rendered, purged });
}
