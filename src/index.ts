import { handleQueue, handleScheduled } from "./accounting/queue";
import { app } from "./app";
import type { Bindings, OutboxMessage } from "./platform/env";

export default {
  fetch: app.fetch,
  // Accounting delivery: the outbox queue (and its dead-letter queue), and the cron re-enqueue pass.
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: (_controller, env) => handleScheduled(env),
} satisfies ExportedHandler<Bindings, OutboxMessage>;
