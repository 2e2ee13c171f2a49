import type { Logger } from "./logger";

/**
 * What the two queues (accounting delivery, webhook delivery) share: messages name a row by id, tagged
 * with the database that wrote it. Pull-request preview versions share their Worker's queues, whose
 * consumer runs on the base preview version against another database; an id is only meaningful in its
 * own database.
 */

/** host/database of a connection string (no credentials): which database a row id belongs to. */
export function databaseTag(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}${url.pathname}`;
  } catch {
    return "";
  }
}

/** Queues accept at most 100 messages per sendBatch. */
const SEND_BATCH_MAX = 100;

/** Sends JSON message bodies in batches the queue accepts, optionally delayed. */
export async function sendBatches<Body>(queue: Queue<Body>, bodies: Body[], delaySeconds?: number): Promise<void> {
  for (let i = 0; i < bodies.length; i += SEND_BATCH_MAX) {
    await queue.sendBatch(
      bodies.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body, contentType: "json" as const })),
      delaySeconds ? { delaySeconds } : undefined,
    );
  }
}

/**
 * The text of an error a queue consumer did not expect, without query parameters: drizzle's query
 * errors quote them, and they may hold tokens, secrets or customer data.
 */
export function crashText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if ("params" in e && e.cause instanceof Error) return `database error: ${e.cause.message}`;
  return e.message;
}

/** Seconds before a dead-letter queue tries again a batch it could not mark (the database away). */
export const DEAD_LETTER_RETRY_SECONDS = 30;

/** A dead-letter queue's name ends in `-dlq` (wrangler.toml). */
export const isDeadLetterQueue = (queue: string) => queue.endsWith("-dlq");

/**
 * The row ids a batch's messages name (`idOf` reads the id from a body). A message tagged with another
 * database (sent by a pull-request preview version: its id means nothing here) or without a valid id is
 * acknowledged and dropped, with a warning naming `what` ("accounting", "webhook").
 */
export function messageRowIds<Body extends { database?: string }>(
  batch: MessageBatch<Body>,
  databaseUrl: string,
  idOf: (body: Body | undefined) => unknown,
  logger: Logger,
  what: string,
): Map<Message<Body>, number> {
  const ids = new Map<Message<Body>, number>();
  const ownDatabase = databaseTag(databaseUrl);
  for (const message of batch.messages) {
    const id = idOf(message.body);
    if (message.body?.database !== undefined && message.body.database !== ownDatabase) {
      logger.warn(`${what} message for another database ignored`, { message_id: message.id });
      message.ack();
    } else if (typeof id === "number" && Number.isSafeInteger(id) && id > 0) ids.set(message, id);
    else {
      logger.warn(`${what} message without a row id dropped`, { message_id: message.id });
      message.ack();
    }
  }
  return ids;
}
