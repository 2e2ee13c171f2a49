import { Ratelimit } from "@upstash/ratelimit";
import type { Bindings } from "../platform/env";
import { upstashRedis } from "../platform/redis";
import { LIMITER_TIMEOUT_MS } from "./interface";

/**
 * Attempts limited per key in a fixed window (the settings area's sign-in: per address and per client),
 * on the same Upstash Redis as the API's per-token limit, under a prefix of their own. When Redis does
 * not answer within LIMITER_TIMEOUT_MS, or is not configured, the isolate's own count decides: a guess
 * at brute force is still slowed on that isolate instead of let through unlimited.
 */
export interface AttemptPolicy {
  /** Names the counter in Redis (`crm:attempts:<name>:<key>`). */
  name: string;
  limit: number;
  windowSeconds: number;
}

export interface AttemptResult {
  allowed: boolean;
  /** Seconds until the window frees an attempt (at least 1 when refused). */
  retryAfterSeconds: number;
}

export interface AttemptLimiter {
  /** Counts one attempt for `key` and decides. Never throws. */
  attempt(key: string): Promise<AttemptResult>;
}

/** The isolate's count: a fixed window per key, the windows aligned as Upstash's fixed window aligns them. */
function localCount(policy: AttemptPolicy) {
  const counts = new Map<string, { window: number; n: number }>();
  const windowMs = policy.windowSeconds * 1000;
  return (key: string): AttemptResult => {
    const now = Date.now();
    const window = Math.floor(now / windowMs);
    const entry = counts.get(key);
    const current = entry && entry.window === window ? entry : { window, n: 0 };
    current.n++;
    counts.set(key, current);
    if (counts.size > 10_000) counts.delete(counts.keys().next().value!);
    const retryAfterSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    return { allowed: current.n <= policy.limit, retryAfterSeconds };
  };
}

const built = new Map<string, AttemptLimiter>();

/** The limiter for this policy and these bindings, built once per isolate. */
export function createAttemptLimiter(env: Bindings, policy: AttemptPolicy): AttemptLimiter {
  const url = env.UPSTASH_REDIS_REST_URL;
  const token = env.UPSTASH_REDIS_REST_TOKEN;
  const id = [policy.name, policy.limit, policy.windowSeconds, env.RATE_LIMIT_BACKEND, url, token].join("|");
  let limiter = built.get(id);
  if (limiter) return limiter;
  const local = localCount(policy);
  if (env.RATE_LIMIT_BACKEND === "memory" || !url || !token) {
    limiter = { attempt: async (key) => local(key) };
  } else {
    const ratelimit = new Ratelimit({
      redis: upstashRedis({ url, token, signal: () => AbortSignal.timeout(LIMITER_TIMEOUT_MS) }),
      limiter: Ratelimit.fixedWindow(policy.limit, `${policy.windowSeconds} s`),
      prefix: `crm:attempts:${policy.name}`,
      // A refusal must be counted in Redis (every isolate sees it), not remembered per isolate only.
      ephemeralCache: false,
      timeout: 0,
      analytics: false,
    });
    limiter = {
      async attempt(key) {
        try {
          const r = await ratelimit.limit(key);
          return { allowed: r.success, retryAfterSeconds: Math.max(1, Math.ceil((r.reset - Date.now()) / 1000)) };
        } catch {
          return local(key);
        }
      },
    };
  }
  built.set(id, limiter);
  return limiter;
}
