import type { Db } from "./db";
import type { Logger } from "./logger";

export interface Bindings {
  DATABASE_URL: string;
  /** host:port of a local Neon-convention WebSocket proxy; set only for local dev and tests. */
  NEON_LOCAL_PROXY?: string;
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
  /** "memory" for a per-isolate limiter when no Redis exists (local dev only). */
  RATE_LIMIT_BACKEND?: string;
  /** Per-source time budget in ms for product lookups (suppliers and storage); default 4000. */
  PRODUCT_SOURCE_TIMEOUT_MS?: string;
  /** Queue producer for accounting delivery (wrangler.toml `[[queues.producers]]`). */
  ACCOUNTING_QUEUE?: Queue<import("../accounting/outbox").OutboxMessage>;
  /** Attempts before an outbox row is dead (default 8). */
  ACCOUNTING_MAX_ATTEMPTS?: string;
  /** First retry delay in seconds, doubled per attempt up to an hour (default 30). */
  ACCOUNTING_RETRY_BASE_SECONDS?: string;
}

export interface Auth {
  companyId: number;
  tokenId: number;
  /** SHA-256 hex digest of the bearer token; the rate-limit key. Never the raw token. */
  tokenHash: string;
}

export interface Variables {
  requestId: string;
  logger: Logger;
  db: Db;
  /** Work that may finish after the response (waitUntil); the pool closes after it. */
  defer: (task: Promise<unknown>) => void;
  auth: Auth;
  /** Set once the JSON body guard has run, so only the first (most specific) limit applies. */
  bodyGuarded?: boolean;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
