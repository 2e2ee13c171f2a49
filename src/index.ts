import { fetchApp } from "./app";
import type { Bindings, OutboxMessage, RequestLogMessage, WebhookMessage } from "./platform/env";
import { WEBHOOK_RENDERERS } from "./resources";

/**
 * The Worker's handlers. The queue consumers and the cron pass are imported when they first run: an
 * isolate that serves requests never builds them (docs/bundle.md#start-up-cpu).
 */
export default {
  // A request whose path or query string is over its limit is answered 414 before anything else.
  fetch: fetchApp,
  // Queues, told apart by name: the request log (and its dead-letter queue), webhook delivery (and its
  // dead-letter queue), else accounting delivery (the outbox queue and its dead-letter queue).
  queue: async (batch, env) => {
    if (batch.queue.startsWith("crm-request-logs"))
      return (await import("./platform/request-log-store")).handleRequestLogQueue(batch as MessageBatch<RequestLogMessage>, env);
    const webhooks = await import("./webhooks/queue");
    if (webhooks.isWebhookQueue(batch.queue))
      return webhooks.handleWebhookQueue(batch as MessageBatch<WebhookMessage>, env, WEBHOOK_RENDERERS);
    return (await import("./accounting/queue")).handleQueue(batch as MessageBatch<OutboxMessage>, env);
  },
  // The cron: both re-enqueue passes, expired idempotency keys, old audit entries and the OAuth server's
  // expired rows are dropped, and the request log's days are created ahead and dropped past its retention.
  scheduled: async (_controller, env) => {
    const [accounting, webhooks, idempotency, audit, db, requestLogs, oauth] = await Promise.all([
      import("./accounting/queue"),
      import("./webhooks/queue"),
      import("./http/idempotency"),
      import("./http/audit"),
      import("./platform/db"),
      import("./platform/request-log-store"),
      import("./oauth/purge"),
    ]);
    await Promise.all([
      accounting.handleScheduled(env),
      webhooks.handleWebhookCron(env, WEBHOOK_RENDERERS),
      idempotency.purgeExpiredIdempotencyKeys(db.createDb(env)),
      audit.purgeOldAuditEntries(db.createDb(env)),
      requestLogs.maintainRequestLogPartitions(db.createDb(env)),
      oauth.purgeExpiredOAuthRows(db.createDb(env)),
    ]);
  },
} satisfies ExportedHandler<Bindings, OutboxMessage | WebhookMessage | RequestLogMessage>;
