import type { Logger } from "../platform/logger";

/** The policy: requests per key (an API token's digest) in a sliding window. */
export const RATE_LIMIT = 300;
export const RATE_WINDOW_SECONDS = 60;
/**
 * Items per key and window that batch requests may carry (POST /clients/batch, POST /orders/batch): a
 * batch counts as one request against RATE_LIMIT, and its items against this.
 */
export const BATCH_ITEMS_LIMIT = 3000;
export const WINDOW_MS = RATE_WINDOW_SECONDS * 1000;
/** Past this the Upstash limiter is treated as down and the request is served (fail-open). */
export const LIMITER_TIMEOUT_MS = 1000;
/** Keys one isolate keeps state for at most (each a few dozen bytes). */
export const LOCAL_KEYS_MAX = 10_000;

export interface LimitResult {
  /** False only when the limiter (or this isolate's own count) said "over the limit". */
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window frees capacity. */
  reset: number;
  /** True when Redis could not answer and the request was let through on this isolate's count alone. */
  failedOpen: boolean;
}

export interface Limiter {
  /**
   * A refusal when this isolate already knows the key is over its limit (its own count, or a
   * refusal from Redis cached until the window ends); undefined otherwise. No I/O, so a caller can
   * answer 429 before doing any other work.
   */
  refused(key: string): LimitResult | undefined;
  /** Counts the request and decides; never throws (Redis trouble fails open). */
  limit(key: string, defer: (p: Promise<unknown>) => void, logger: Logger): Promise<LimitResult>;
  /**
   * Counts `n` batch items of the key against BATCH_ITEMS_LIMIT and decides (all of them or none);
   * never throws (Redis trouble fails open).
   */
  limitItems(key: string, n: number, defer: (p: Promise<unknown>) => void, logger: Logger): Promise<LimitResult>;
}

/** End of the current fixed window: when Upstash's sliding window next frees capacity. */
export const windowEnd = (now: number) => (Math.floor(now / WINDOW_MS) + 1) * WINDOW_MS;
