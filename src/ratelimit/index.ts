import type { Bindings } from "../platform/env";
import type { Limiter } from "./interface";
import { createMemoryLimiter } from "./memory";

/*
 * The per-key rate limit (RATE_LIMIT requests per RATE_WINDOW_SECONDS per API token), as Unkey's API
 * keeps its limiter: an interface (interface.ts), the limiters behind it (Upstash Redis: upstash.ts;
 * the isolate's own count: memory.ts) and their parts (local-window.ts, reservations.ts, circuit.ts).
 * Request handling (http/auth.ts) calls `createLimiter` and knows nothing else of it.
 */
export { CIRCUIT_OPEN_AFTER, CIRCUIT_RETRY_MS } from "./circuit";
export { BATCH_ITEMS_LIMIT, LIMITER_TIMEOUT_MS, type Limiter, type LimitResult, RATE_LIMIT, RATE_WINDOW_SECONDS } from "./interface";
export { RESERVE_MAX } from "./reservations";

let memoryLimiter: Limiter | undefined;
let upstashLimiter: { config: string; limiter: Limiter } | undefined;

/**
 * The Upstash limiter, its module (the Redis client, every command of it, and @upstash/ratelimit)
 * imported on the first call: requests that carry no token (health, the document, the docs page) never
 * build it. Before that call nothing is known of any key, so nothing is refused early.
 */
function onFirstUse(url: string, token: string): Limiter {
  let limiter: Limiter | undefined;
  let loading: Promise<Limiter> | undefined;
  const load = () => {
    loading ??= import("./upstash").then((m) => (limiter = m.createUpstashLimiter(url, token)));
    // A failed import is retried by the next call.
    loading.catch(() => (loading = undefined));
    return loading;
  };
  return {
    refused: (key) => limiter?.refused(key),
    limit: async (key, defer, logger) => (limiter ?? (await load())).limit(key, defer, logger),
    limitItems: async (key, n, defer, logger) => (limiter ?? (await load())).limitItems(key, n, defer, logger),
  };
}

/** The limiter for these bindings, built once per isolate (bindings do not change within one). */
export function createLimiter(env: Bindings): Limiter {
  if (env.RATE_LIMIT_BACKEND === "memory") {
    memoryLimiter ??= createMemoryLimiter();
    return memoryLimiter;
  }
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const config = `${url}|${token}`;
  if (upstashLimiter?.config !== config) {
    const limiter =
      url && token ? onFirstUse(url, token) : createMemoryLimiter("UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN not configured");
    upstashLimiter = { config, limiter };
  }
  return upstashLimiter.limiter;
}
