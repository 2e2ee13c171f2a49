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
