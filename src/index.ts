import { handleQueue, handleScheduled } from "./accounting/queue";
import { app } from "./app";
import { purgeExpiredIdempotencyKeys } from "./http/idempotency";
import { createDb } from "./platform/db";
import type { Bindings, OutboxMessage } from "./platform/env";

export default {
  fetch: app.fetch,
  // Accounting delivery: the outbox queue (and its dead-letter queue), and the cron re-enqueue pass;
  // the cron also drops expired idempotency keys.
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: async (_controller, env) => {
    await Promise.all([handleScheduled(env), purgeExpiredIdempotencyKeys(createDb(env))]);
  },
} satisfies ExportedHandler<Bindings, OutboxMessage>;
