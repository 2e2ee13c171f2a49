import { sql } from "drizzle-orm";
import { requestLogs } from "../db/schema/request-logs";
import { createDb, type Db } from "./db";
import type { Bindings, RequestLogMessage } from "./env";
import { createLogger } from "./logger";
import { crashText, isDeadLetterQueue } from "./queue";
import { rowsOf } from "./sql-kit";

/*
 * The request log's store (docs/request-logs.md): the queue's consumer writes each batch of entries with
 * one multi-row INSERT into `request_logs`, a table partitioned by day; the cron pass creates the days
 * ahead and drops whole days past the retention (the SQL function `request_log_partitions`, from the
 * migration `request_logs_sql`). The request that made an entry has long been answered: nothing here
 * can fail or delay one.
 */

/** Days an entry is kept (and listed). */
export const REQUEST_LOG_RETENTION_DAYS = 30;
/** Days of partitions the cron pass keeps created ahead of today (UTC). */
const PARTITION_DAYS_AHEAD = 7;
/** The request log queues' names start with this (wrangler.toml); the dead-letter queue's end in `-dlq`. */
export const REQUEST_LOG_QUEUE_PREFIX = "crm-request-logs";
export const isRequestLogQueue = (queue: string) => queue.startsWith(REQUEST_LOG_QUEUE_PREFIX);
/** Seconds before the queue delivers again a batch the store refused (the store away). */
const RETRY_SECONDS = 2;

/** A message body as a row, or undefined for a body that is not an entry (dropped, with a warning). */
function rowOf(m: RequestLogMessage | undefined): typeof requestLogs.$inferInsert | undefined {
  if (!m || typeof m.request_id !== "string" || !Number.isSafeInteger(m.company_id) || !Number.isSafeInteger(m.status)) return undefined;
  const createdAt = new Date(m.created_at);
  if (Number.isNaN(createdAt.getTime())) return undefined;
  return {
    createdAt,
    companyId: m.company_id,
    requestId: m.request_id,
    seq: m.seq ?? 0,
    method: m.method,
    path: m.path,
    operation: m.operation,
    tool: m.tool,
    status: m.status,
    statusClass: Math.trunc(m.status / 100),
    errorCode: m.error_code,
    durationMs: m.duration_ms,
    tokenId: m.token_id,
    oauthGrantId: m.oauth_grant_id,
    oauthClientId: m.oauth_client_id,
    userId: m.user_id,
    idempotencyKey: m.idempotency_key,
    idempotentReplay: m.idempotent_replay === true,
  };
}

/** PostgreSQL's "no partition of relation … found for row": a day the cron pass has not created. */
const isMissingPartition = (e: unknown) => /no partition of relation/i.test(crashText(e));

/**
 * Writes the entries with one multi-row INSERT; an entry already written (a redelivered message) is
 * skipped. A day without its partition yet (the cron pass did not run) is created, then written.
 */
export async function writeRequestLogs(db: Db, rows: (typeof requestLogs.$inferInsert)[]): Promise<void> {
  if (!rows.length) return;
  const insert = () => db.insert(requestLogs).values(rows).onConflictDoNothing();
  try {
    await insert();
  } catch (e) {
    if (!isMissingPartition(e)) throw e;
    const days = Math.ceil((Date.now() - Math.min(...rows.map((r) => (r.createdAt as Date).getTime()))) / 86_400_000) + 1;
    await maintainRequestLogPartitions(db, days);
    await insert();
  }
}

/** Creates the partitions from `daysBack` days ago to PARTITION_DAYS_AHEAD ahead, drops those past the retention; answers how many went. */
export async function maintainRequestLogPartitions(db: Db, daysBack = 1): Promise<number> {
  const [row] = rowsOf<{ dropped: number }>(
    await db.execute(
      sql`select request_log_partitions(${PARTITION_DAYS_AHEAD}::int, ${REQUEST_LOG_RETENTION_DAYS}::int, ${daysBack}::int) as dropped`,
    ),
  );
  return row.dropped;
}

/**
 * The Worker's `queue` handler for the request log queue and its dead-letter queue. A batch the store
 * refuses is delivered again (up to max_retries, then to the dead-letter queue, whose consumer tries once
 * more): entries are lost only when the store stays away that long, and each loss is an error log line
 * with its count (`request log entries dropped`).
 */
export async function handleRequestLogQueue(batch: MessageBatch<RequestLogMessage>, env: Bindings): Promise<void> {
  const logger = createLogger({ request_id: crypto.randomUUID(), queue: batch.queue, messages: batch.messages.length });
  const rows = batch.messages.flatMap((m) => {
    const row = rowOf(m.body);
    if (!row) logger.warn("request log message without an entry dropped", { message_id: m.id });
    return row ? [row] : [];
  });
  try {
    await writeRequestLogs(createDb(env), rows);
    batch.ackAll();
  } catch (e) {
    if (isDeadLetterQueue(batch.queue)) {
      logger.error("request log entries dropped", { dropped: rows.length, error: crashText(e) });
      batch.ackAll();
    } else {
      logger.warn("request log batch not written; delivered again", { entries: rows.length, error: crashText(e) });
      batch.retryAll({ delaySeconds: RETRY_SECONDS });
    }
  }
}
