import { MAX_TOKEN_CACHE_TTL_MS } from "../platform/config";
import type { Logger } from "../platform/logger";
import type { UpstashRedisConfig } from "../platform/redis";
import { Circuit } from "../ratelimit/circuit";
import { LIMITER_TIMEOUT_MS } from "../ratelimit/interface";

/*
 * How a revocation reaches every isolate on its next request. The token cache (auth.ts) keeps a token
 * for up to MAX_TOKEN_CACHE_TTL_MS; a revoke writes a marker keyed by the token's digest to Redis once
 * its row is committed, and a request answered from the cache reads the marker beside its own work (the
 * limiter's Redis call, the route's statement). A marker outlives every cache entry that may hold the
 * token, so it needs no clean-up. Expiry needs no marker: the cache holds each token's expires_at.
 */

const PREFIX = "crm:token-revoked:";
/** Twice the longest a cache entry lives: every entry made before the revoke is gone before its marker. */
export const REVOCATION_MARK_MS = 2 * MAX_TOKEN_CACHE_TTL_MS;
/** A revoke's marker write waits this long for Redis at most. */
const MARK_TIMEOUT_MS = 2000;

/** The settings naming the Upstash database (the Worker's bindings, the CLI's config). */
export interface RedisSettings {
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
}

/** `unknown`: Redis did not answer (or is not configured); the caller asks the database instead. */
export type Revocation = "revoked" | "live" | "unknown";

export interface RevocationCheck {
  check(tokenHash: string, logger: Logger): Promise<Revocation>;
}

const client = async (config: UpstashRedisConfig) => (await import("../platform/redis")).upstashRedis(config);

let checker: { config: string; check: RevocationCheck } | undefined;

/**
 * The isolate's reader of revocation markers, or undefined without Upstash settings (then no isolate can
 * learn of a revocation but from the database, so auth.ts looks every token up). Redis trouble answers
 * `unknown` after LIMITER_TIMEOUT_MS at most; a circuit like the limiter's (its own: the limiter may be
 * the in-memory one) then skips Redis for a while, so a Redis outage costs a database lookup per request,
 * never a wait.
 */
export function revocationCheck(settings: RedisSettings): RevocationCheck | undefined {
  const url = settings.UPSTASH_REDIS_REST_URL;
  const token = settings.UPSTASH_REDIS_REST_TOKEN;
  if (!url || !token) return undefined;
  const config = `${url}|${token}`;
  if (checker?.config === config) return checker.check;
  const circuit = new Circuit();
  let loading: ReturnType<typeof client> | undefined;
  const check: RevocationCheck = {
    async check(tokenHash, logger) {
      if (!circuit.allows(Date.now())) return "unknown";
      try {
        // A failed import is retried by the next call.
        loading ??= client({ url, token, signal: () => AbortSignal.timeout(LIMITER_TIMEOUT_MS) }).catch((e) => {
          loading = undefined;
          throw e;
        });
        const marked = await (await loading).exists(PREFIX + tokenHash);
        circuit.succeeded(logger);
        return marked > 0 ? "revoked" : "live";
      } catch (e) {
        circuit.failed(logger, e instanceof Error ? e.message : String(e));
        return "unknown";
      }
    },
  };
  checker = { config, check };
  return check;
}

/**
 * Marks revoked tokens (their digests) for every isolate, after their rows are committed. False when Redis
 * is not configured or did not take the marks: the revocation then reaches an isolate that cached the token
 * within its TTL (30 s), or at once where Redis is unreachable too (that isolate asks the database).
 */
export async function markRevoked(settings: RedisSettings, tokenHashes: string[]): Promise<boolean> {
  const url = settings.UPSTASH_REDIS_REST_URL;
  const token = settings.UPSTASH_REDIS_REST_TOKEN;
  if (!url || !token) return false;
  if (tokenHashes.length === 0) return true;
  try {
    const redis = await client({ url, token, signal: () => AbortSignal.timeout(MARK_TIMEOUT_MS) });
    await Promise.all(tokenHashes.map((hash) => redis.set(PREFIX + hash, "1", { px: REVOCATION_MARK_MS })));
    return true;
  } catch {
    return false;
  }
}
