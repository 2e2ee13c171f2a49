import { handleQueue, handleScheduled } from "./accounting/queue";
import { app } from "./app";
import { purgeExpiredIdempotencyKeys } from "./http/idempotency";
import { createDb } from "./platform/db";
import type { Bindings, OutboxMessage, WebhookMessage } from "./platform/env";
import { WEBHOOK_RENDERERS } from "./resources";
import { handleWebhookCron, handleWebhookQueue, isWebhookQueue } from "./webhooks/queue";

export default {
  fetch: app.fetch,
  // Queues, told apart by name: webhook delivery (and its dead-letter queue), else accounting delivery
  // (the outbox queue and its dead-letter queue).
  queue: (batch, env) =>
    isWebhookQueue(batch.queue)
      ? handleWebhookQueue(batch as MessageBatch<WebhookMessage>, env, WEBHOOK_RENDERERS)
      : handleQueue(batch as MessageBatch<OutboxMessage>, env),
  // The cron: both re-enqueue passes, and expired idempotency keys are dropped.
  scheduled: async (_controller, env) => {
    await Promise.all([handleScheduled(env), handleWebhookCron(env, WEBHOOK_RENDERERS), purgeExpiredIdempotencyKeys(createDb(env))]);
  },
} satisfies ExportedHandler<Bindings, OutboxMessage | WebhookMessage>;
