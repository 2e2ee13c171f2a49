import type { Bindings } from "../platform/env";
import type { Limiter } from "./interface";
import { createMemoryLimiter } from "./memory";
import { createUpstashLimiter } from "./upstash";

/*
 * The per-key rate limit (RATE_LIMIT requests per RATE_WINDOW_SECONDS per API token), as Unkey's API
 * keeps its limiter: an interface (interface.ts), the limiters behind it (Upstash Redis: upstash.ts;
 * the isolate's own count: memory.ts) and their parts (local-window.ts, reservations.ts, circuit.ts).
 * Request handling (http/auth.ts) calls `createLimiter` and knows nothing else of it.
 */
export { CIRCUIT_OPEN_AFTER, CIRCUIT_RETRY_MS } from "./circuit";
export { type Limiter, type LimitResult, RATE_LIMIT, RATE_WINDOW_SECONDS } from "./interface";
export { RESERVE_MAX } from "./reservations";
export { LIMITER_TIMEOUT_MS } from "./upstash";

let memoryLimiter: Limiter | undefined;
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
  if (upstashLimiter?.config !== config) {
    const limiter =
      url && token
        ? createUpstashLimiter(url, token)
        : createMemoryLimiter("UPSTASH_REDIS_REST_URL / UPSTASH_REDIS_REST_TOKEN not configured");
    upstashLimiter = { config, limiter };
  }
  return upstashLimiter.limiter;
}
