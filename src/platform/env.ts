/** A queue message naming one accounting outbox row; `database` tags which database wrote it. */
export type OutboxMessage = { outbox_id: number; database?: string };
/** A queue message naming one webhook delivery row; `database` as above. */
export type WebhookMessage = { delivery_id: number; database?: string };

/**
 * One request log entry on its way to the store (src/http/request-log.ts → src/platform/request-log-store.ts):
 * the row of `request_logs`, snake_case, with `created_at` as ISO 8601. No bodies, no secrets.
 */
export interface RequestLogMessage {
  request_id: string;
  seq: number;
  created_at: string;
  company_id: number;
  method: string;
  path: string;
  operation: string | null;
  tool: string | null;
  status: number;
  error_code: string | null;
  duration_ms: number;
  token_id: number | null;
  oauth_grant_id: number | null;
  oauth_client_id: string | null;
  user_id: number | null;
  idempotency_key: string | null;
  idempotent_replay: boolean;
}

/**
 * The Worker's bindings as wrangler hands them over. Settings are read through `workerConfig`
 * (platform/config.ts), which checks them and fills in defaults; only bindings that are objects
 * (the queue) are read from here directly.
 */
export interface Bindings {
  DATABASE_URL: string;
  /**
   * host:port of the local Neon stand-in (SQL over HTTP at /sql, and the Neon-convention WebSocket
   * proxy); set only for local dev and tests.
   */
  NEON_LOCAL_PROXY?: string;
  /** Deadline in ms of one database call, connecting and queueing included (default 4000); then 503. */
  DB_DEADLINE_MS?: string;
  /** Database calls one isolate runs at once (default 32); more wait for a slot within their deadline. */
  DB_MAX_CONCURRENCY?: string;
  /** How long an isolate trusts a checked API token, in ms (default and maximum 30000; 0 checks every request). */
  TOKEN_CACHE_TTL_MS?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** "memory" for a per-isolate limiter when no Redis exists (local dev only). */
  RATE_LIMIT_BACKEND?: string;
  /** Per-source time budget in ms for product lookups (suppliers and storage); default 4000. */
  PRODUCT_SOURCE_TIMEOUT_MS?: string;
  /** Queue producer for accounting delivery (wrangler.toml `[[queues.producers]]`). */
  ACCOUNTING_QUEUE?: Queue<OutboxMessage>;
  /** Queue producer for webhook delivery (wrangler.toml `[[queues.producers]]`). */
  WEBHOOK_QUEUE?: Queue<WebhookMessage>;
  /** Queue producer for request log entries (wrangler.toml `[[queues.producers]]`); without it nothing is logged. */
  REQUEST_LOG_QUEUE?: Queue<RequestLogMessage>;
  /** Attempts before an outbox row is dead (default 8). */
  ACCOUNTING_MAX_ATTEMPTS?: string;
  /** First retry delay in seconds, doubled per attempt up to an hour (default 30). */
  ACCOUNTING_RETRY_BASE_SECONDS?: string;
  /** "true": webhook endpoints may be http://127.0.0.1 or http://localhost (local stack and tests only; default false). */
  WEBHOOK_ALLOW_LOCAL_HTTP?: string;
  /** Comma-separated browser origins allowed by CORS; empty (the default) turns CORS off. */
  CORS_ALLOWED_ORIGINS?: string;
  /** Webhook delivery settings (platform/config.ts). */
  WEBHOOK_TIMEOUT_MS?: string;
  WEBHOOK_RETRY_SCHEDULE?: string;
  WEBHOOK_DISABLE_AFTER_HOURS?: string;
  WEBHOOK_DISABLE_MIN_FAILURES?: string;
  /** Settings area sessions and sign-in throttling (platform/config.ts, docs/settings.md). */
  SETTINGS_SESSION_IDLE_SECONDS?: string;
  SETTINGS_SESSION_LIFETIME_SECONDS?: string;
  SIGN_IN_LIMIT_PER_ADDRESS?: string;
  SIGN_IN_LIMIT_PER_CLIENT?: string;
  SIGN_IN_WINDOW_SECONDS?: string;
}
