import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import { DeadlineExceeded, withDeadline } from "../platform/deadline";
import type { Bindings } from "../platform/env";
import type { Logger } from "../platform/logger";

export const RATE_LIMIT = 300;
export const RATE_WINDOW_SECONDS = 60;
/** Past this the limiter is treated as down and the request is served (fail-open). */
export const LIMITER_TIMEOUT_MS = 1000;

export interface LimitResult {
  /** False only when the limiter positively said "over the limit". */
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix ms when the window frees capacity. */
  reset: number;
  /** True when the limiter could not answer and the request was let through. */
  failedOpen: boolean;
}

export interface Limiter {
  limit(key: string, defer: (p: Promise<unknown>) => void, logger: Logger): Promise<LimitResult>;
}

let memoryLimiter: Limiter | undefined;

/** Sliding window in this isolate's memory; local dev without redis-server only. */
function createMemoryLimiter(): Limiter {
  const hits = new Map<string, number[]>();
  return {
    async limit(key) {
      const now = Date.now();
      const windowStart = now - RATE_WINDOW_SECONDS * 1000;
      const recent = (hits.get(key) ?? []).filter((t) => t > windowStart);
      const allowed = recent.length < RATE_LIMIT;
      if (allowed) recent.push(now);
      hits.set(key, recent);
      return {
        allowed,
        limit: RATE_LIMIT,
        remaining: Math.max(0, RATE_LIMIT - recent.length),
        reset: (recent[0] ?? now) + RATE_WINDOW_SECONDS * 1000,
        failedOpen: false,
      };
    },
  };
}

let upstashLimiter: { config: string; limiter: Limiter } | undefined;

/** The limiter for these bindings, built once per isolate (bindings do not change within one). */
export function createLimiter(env: Bindings): Limiter {
  if (env.RATE_LIMIT_BACKEND === "memory") {
    memoryLimiter ??= createMemoryLimiter();
    return memoryLimiter;
  }
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const config = `${url}|${token}`;
  if (upstashLimiter?.config !== config) upstashLimiter = { config, limiter: createUpstashLimiter(url, token) };
  return upstashLimiter.limiter;
}

function createUpstashLimiter(url: string | undefined, token: string | undefined): Limiter {
  const ratelimit =
    url && token
      ? new Ratelimit({
          // No client retries: a slow or dead Redis must not hold the request (fail-open instead).
          redis: new Redis({ url, token, retry: false, enableTelemetry: false }),
          limiter: Ratelimit.slidingWindow(RATE_LIMIT, `${RATE_WINDOW_SECONDS} s`),
          prefix: "crm:ratelimit",
          // Our own deadline below: the library's would abandon the call, and the request would go uncounted.
          timeout: 0,
          analytics: false,
        })
      : undefined;

  return {
    async limit(key, defer, logger) {
      const open = (reason: string): LimitResult => {
        logger.warn("rate limiter unavailable; request served without limiting", { reason });
        return { allowed: true, limit: RATE_LIMIT, remaining: RATE_LIMIT, reset: Date.now(), failedOpen: true };
      };
      if (!ratelimit) return open("UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN not configured");
      try {
        const call = ratelimit.limit(key);
        // Kept alive after the response (waitUntil): a slow answer still counts this request.
        defer(call.then((r) => r.pending));
        const res = await withDeadline(LIMITER_TIMEOUT_MS, () => call).catch((e: unknown) => {
          if (e instanceof DeadlineExceeded) return "timeout" as const;
          throw e;
        });
        if (res === "timeout") return open(`no answer within ${LIMITER_TIMEOUT_MS} ms`);
        return { allowed: res.success, limit: res.limit, remaining: res.remaining, reset: res.reset, failedOpen: false };
      } catch (e) {
        return open(e instanceof Error ? e.message : String(e));
      }
    },
  };
}
