import { eq, inArray, sql } from "drizzle-orm";
import pLimit from "p-limit";
import { accountingOutbox } from "../db/schema/accounting";
import { type Config, workerConfig } from "../platform/config";
import { type Db, openSession } from "../platform/db";
import type { Bindings, OutboxMessage } from "../platform/env";
import { createLogger, type Logger } from "../platform/logger";
import { crashText, DEAD_LETTER_RETRY_SECONDS, isDeadLetterQueue, messageRowIds } from "../platform/queue";
import { rowsOf } from "../platform/sql-kit";
import { backoffSeconds, Delivery, type DeliveryTarget } from "./deliver";
import { enqueueOutbox } from "./outbox";

/** Invoices delivered at once per batch; each may hold up to three pooled connections (chain, customer, token). */
const CONCURRENT_INVOICES = 2;
/** Rows still pending this long after their last hand-off are sent again by the cron pass. */
export const STALE_MINUTES = 5;
const REENQUEUE_LIMIT = 1000;

/**
 * Delivery holds transactions open across QuickBooks calls (advisory locks, the token refresh's row
 * lock), which SQL over HTTP cannot: a WebSocket session per batch, ended with it.
 */
const withDb = async <T>(
  env: Bindings,
  run: (db: Db, logger: Logger, config: Config) => Promise<T>,
  logFields: Record<string, unknown>,
) => {
  // A wrong setting fails the invocation before any database work (the queue retries the batch).
  const config = workerConfig(env);
  const logger = createLogger({ request_id: crypto.randomUUID(), ...logFields });
  const session = openSession(env);
  try {
    return await run(session.db, logger, config);
  } finally {
    await session.end();
  }
};

/** The Worker's `queue` handler: the accounting queue and its dead-letter queue. */
export function handleQueue(batch: MessageBatch<OutboxMessage>, env: Bindings): Promise<void> {
  return withDb(
    env,
    async (db, logger, config) => {
      const ids = messageRowIds(batch, env.DATABASE_URL, (body) => body?.outbox_id, logger, "accounting");
      if (isDeadLetterQueue(batch.queue)) {
        return markDeadLettered(env, db, [...ids.values()], batch.messages, logger).catch((e) => {
          // The database may be what failed: the dead-letter queue tries again later (the cron pass is the backstop).
          logger.error("accounting dead-letter marking failed", { error: crashText(e) });
          for (const message of batch.messages) message.retry({ delaySeconds: DEAD_LETTER_RETRY_SECONDS });
        });
      }

      const ctx: BatchContext = {
        db,
        env,
        delivery: new Delivery(db, config, logger),
        retryBaseSeconds: config.ACCOUNTING_RETRY_BASE_SECONDS,
        logger,
      };
      // One invoice's messages run one after another (they share its lock); invoices run side by side.
      let rows: { id: number; invoiceId: number; companyId: number }[] = [];
      try {
        if (ids.size)
          rows = await db
            .select({ id: accountingOutbox.id, invoiceId: accountingOutbox.invoiceId, companyId: accountingOutbox.companyId })
            .from(accountingOutbox)
            .where(inArray(accountingOutbox.id, [...ids.values()]));
      } catch (e) {
        // The database is away: each message comes back with its backoff, as a crashed delivery does. (Thrown,
        // the whole batch would be retried at once, using up its retries within seconds, then dead-lettered.)
        logger.error("accounting batch crashed", { error: crashText(e) });
        for (const message of ids.keys())
          message.retry({ delaySeconds: backoffSeconds(message.attempts, config.ACCOUNTING_RETRY_BASE_SECONDS) });
        return;
      }
      const rowOf = new Map(rows.map((r) => [r.id, r]));
      const groups = new Map<number, [Message<OutboxMessage>, DeliveryTarget][]>();
      for (const [message, id] of ids) {
        const row = rowOf.get(id);
        if (!row) {
          message.ack(); // no such row
          continue;
        }
        groups.set(row.invoiceId, [...(groups.get(row.invoiceId) ?? []), [message, row]]);
      }
      const limit = pLimit(CONCURRENT_INVOICES);
      await Promise.all(
        [...groups.values()].map((messages) =>
          limit(async () => {
            for (const [message, row] of messages) await handleMessage(ctx, message, row);
          }),
        ),
      );
    },
    { queue: batch.queue, messages: batch.messages.length },
  );
}

interface BatchContext {
  db: Db;
  env: Bindings;
  delivery: Delivery;
  retryBaseSeconds: number;
  logger: Logger;
}

async function handleMessage(ctx: BatchContext, message: Message<OutboxMessage>, target: DeliveryTarget) {
  const outboxId = target.id;
  try {
    const outcome = await ctx.delivery.deliver(target);
    if (outcome.action === "retry") return message.retry({ delaySeconds: outcome.delaySeconds });
    if (outcome.resend) await enqueueOutbox(ctx.env, [outcome.resend.outboxId], outcome.resend.delaySeconds);
    message.ack();
  } catch (e) {
    // Unexpected (database down, a bug): the queue retries and, past max_retries, dead-letters it.
    const error = crashText(e);
    const delaySeconds = backoffSeconds(message.attempts, ctx.retryBaseSeconds);
    ctx.logger.error("accounting delivery crashed", { outbox_id: outboxId, attempt: message.attempts, error });
    // When its message comes back, as a retry's row does (the cron pass does not send it before).
    await ctx.db
      .update(accountingOutbox)
      .set({
        lastError: `delivery crashed: ${error.slice(0, 500)}`,
        enqueuedAt: sql`now() + make_interval(secs => ${delaySeconds})`,
        updatedAt: sql`now()`,
      })
      .where(eq(accountingOutbox.id, outboxId))
      .catch(() => {}); // the database may be what failed; the log line has it
    message.retry({ delaySeconds });
  }
}

/**
 * Messages the queue gave up on: their rows are dead, keeping the last error seen. Rows of the same
 * invoice behind a dead one waited for it (their messages were acknowledged): the next of each such
 * invoice is sent now, so they do not wait for the cron pass.
 */
async function markDeadLettered(env: Bindings, db: Db, outboxIds: number[], messages: readonly Message<OutboxMessage>[], logger: Logger) {
  if (outboxIds.length) {
    const dead = await db
      .update(accountingOutbox)
      .set({
        status: "dead",
        lastError: sql`coalesce(${accountingOutbox.lastError} || ' — ', '') || 'gave up: the queue moved the message to the dead-letter queue'`,
        processedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(sql`${inArray(accountingOutbox.id, outboxIds)} and ${accountingOutbox.status} in ('pending', 'failed')`)
      .returning({ id: accountingOutbox.id, invoiceId: accountingOutbox.invoiceId });
    if (dead.length) {
      logger.error("accounting rows dead-lettered", { outbox_ids: dead.map((r) => r.id) });
      const next = await db
        .select({ id: sql<number>`min(${accountingOutbox.id})`.mapWith(Number) })
        .from(accountingOutbox)
        .where(
          sql`${inArray(
            accountingOutbox.invoiceId,
            dead.map((r) => r.invoiceId),
          )} and ${accountingOutbox.status} in ('pending', 'failed')`,
        )
        .groupBy(accountingOutbox.invoiceId);
      await enqueueOutbox(
        env,
        next.map((r) => r.id),
      );
    }
  }
  for (const message of messages) message.ack();
}

/**
 * The cron pass: rows of connected companies still pending or failed with no hand-off for a few
 * minutes (a crash between commit and send, a lost message) go to the queue again, and so do rows
 * last handed off before their company's connection was stored or replaced (`accounting connect`):
 * those waited for it. Claiming them (enqueued_at = now) in one statement keeps overlapping passes
 * from sending a row twice. A row backing off (enqueued_at in the future) waits for its time.
 */
export function handleScheduled(env: Bindings): Promise<void> {
  return withDb(
    env,
    async (db, logger) => {
      if (!env.ACCOUNTING_QUEUE) return logger.warn("accounting cron pass skipped: no ACCOUNTING_QUEUE binding");
      const rows = rowsOf<{ id: string | number }>(
        await db.execute(sql`
        update accounting_outbox o set enqueued_at = now(), updated_at = now()
        where o.id in (
          select s.id from accounting_outbox s
          join accounting_connections c on c.company_id = s.company_id
          where s.status in ('pending', 'failed')
            and (coalesce(s.enqueued_at, s.created_at) < now() - make_interval(mins => ${STALE_MINUTES})
              or coalesce(s.enqueued_at, s.created_at) < c.updated_at)
          order by s.id
          limit ${REENQUEUE_LIMIT}
          for update of s skip locked)
        returning o.id`),
      );
      const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
      await enqueueOutbox(env, ids);
      logger.info("accounting cron pass", { reenqueued: ids.length });
    },
    { job: "accounting-cron" },
  );
}
