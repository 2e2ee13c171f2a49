import { app } from "./app";
import { handleQueue, handleScheduled } from "./accounting/queue";
import type { Bindings } from "./lib/env";

export default {
  fetch: app.fetch,
  // Accounting delivery: the outbox queue (and its dead-letter queue), and the cron re-enqueue pass.
  queue: (batch, env) => handleQueue(batch, env),
  scheduled: (_controller, env) => handleScheduled(env),
} satisfies ExportedHandler<Bindings, import("./accounting/outbox").OutboxMessage>;
