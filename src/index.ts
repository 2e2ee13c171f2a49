import { handleQueue, handleScheduled } from "./accounting/queue";
import { app } from "./app";
import { purgeExpiredIdempotencyKeys } from "./http/idempotency";
import { createDb } from "./platform/db";
import type { Bindings, OutboxMessage, WebhookMessage } from "./platform/env";
import type { WebhookRenderers } from "./webhooks/events";
import { handleWebhookCron, handleWebhookQueue, isWebhookQueue } from "./webhooks/queue";

/**
 * Webhook delivery renders a payload the after-commit step did not fill with the resources' own
 * serializers, imported when first needed (like the routes, they are not built at start-up).
 */
const webhookRenderers: WebhookRenderers = {
  client: async (db, event) => (await import("./routes/clients/webhook-object")).renderClientObject(db, event),
  order: async (db, event) => (await import("./routes/orders/webhook-object")).renderOrderObject(db, event),
  email_thread: async (db, event) => (await import("./routes/mail/webhook-object")).renderEmailThreadObject(db, event),
};

export default {
  fetch: app.fetch,
  // Queues, told apart by name: webhook delivery (and its dead-letter queue), else accounting delivery
  // (the outbox queue and its dead-letter queue).
  queue: (batch, env) =>
    isWebhookQueue(batch.queue)
      ? handleWebhookQueue(batch as MessageBatch<WebhookMessage>, env, webhookRenderers)
      : handleQueue(batch as MessageBatch<OutboxMessage>, env),
  // The cron: both re-enqueue passes, and expired idempotency keys are dropped.
  scheduled: async (_controller, env) => {
    await Promise.all([handleScheduled(env), handleWebhookCron(env, webhookRenderers), purgeExpiredIdempotencyKeys(createDb(env))]);
  },
} satisfies ExportedHandler<Bindings, OutboxMessage | WebhookMessage>;
