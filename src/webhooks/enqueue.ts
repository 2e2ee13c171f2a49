import type { Bindings, WebhookMessage } from "../platform/env";
import { databaseTag, sendBatches } from "../platform/queue";

/**
 * Hands webhook delivery rows to the queue (after the commit that wrote them, by a manual retry and
 * by the cron pass). A failed or skipped send loses nothing: the cron pass re-sends due rows.
 */
export async function enqueueWebhookDeliveries(env: Bindings, deliveryIds: number[], delaySeconds?: number): Promise<void> {
  const queue = env.WEBHOOK_QUEUE;
  if (!queue || !deliveryIds.length) return;
  const database = databaseTag(env.DATABASE_URL);
  await sendBatches(
    queue,
    deliveryIds.map((id): WebhookMessage => ({ delivery_id: id, database })),
    delaySeconds,
  );
}
