import { MAX_TOKEN_CACHE_TTL_MS } from "../platform/config";
import type { Logger } from "../platform/logger";
import type { UpstashRedisConfig } from "../platform/redis";
import { Circuit } from "../ratelimit/circuit";
import { LIMITER_TIMEOUT_MS } from "../ratelimit/interface";

/*
 * How a revocation reaches every isolate by the next request after it is acknowledged, without a Redis
 * call per request. The token cache (auth.ts) keeps a token for up to MAX_TOKEN_CACHE_TTL_MS. A revoke
 * adds the token's digest to one sorted set in Redis (scored by when) once its row is committed, then
 * waits SYNC_INTERVAL_MS before it answers. Each isolate reads the set's new members at most once per
 * SYNC_INTERVAL_MS (the request that finds its last read too old makes the next one, beside its own
 * work), and answers from the cache only while its last read started less than SYNC_INTERVAL_MS ago.
 * So any request that starts after a revoke's answer is checked against a read that started after the
 * revoke reached Redis. A busy isolate pays one Redis call a second, not one per request (the limiter
 * too serves busy keys from reservations, without a call each). Expiry needs no marker: the cache holds
 * each token's expires_at.
 */

const KEY = "crm:token-revocations";
/** An isolate answers from its cache only while its last read of the set started less than this ago. */
export const SYNC_INTERVAL_MS = 1000;
/** Twice the longest a cache entry lives: every entry made before the revoke is gone before its member. */
export const REVOCATION_MARK_MS = 2 * MAX_TOKEN_CACHE_TTL_MS;
/**
 * A member is scored with its revoker's clock, read back against this isolate's: each read asks again for
 * members up to this much older than the last read, so clocks this far apart lose none.
 */
const CLOCK_SKEW_MS = 10_000;
/** A revoke's write waits this long for Redis at most. */
const MARK_TIMEOUT_MS = 2000;

/** The settings naming the Upstash database (the Worker's bindings, the CLI's config). */
export interface RedisSettings {
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
}

/** `unknown`: Redis did not answer (or is not configured); the caller asks the database instead. */
export type Revocation = "revoked" | "live" | "unknown";

export interface RevocationCheck {
  /** Settled at once while the isolate's last read is fresh; otherwise after this request's read. */
  check(tokenHash: string, logger: Logger): Revocation | Promise<Revocation>;
}

const client = async (config: UpstashRedisConfig) => (await import("../platform/redis")).upstashRedis(config);

let checker: { config: string; check: RevocationCheck } | undefined;

/**
 * The isolate's reader of revocations, or undefined without Upstash settings (then no isolate can learn
 * of a revocation but from the database, so auth.ts looks every token up). Redis trouble answers
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
  /** Digests revoked within REVOCATION_MARK_MS, with their scores: a cache hit on one of them is refused. */
  const revoked = new Map<string, number>();
  /** When the last successful read started (this isolate's clock); 0: never. */
  let readStartedAt = 0;

  // Each request that finds the last read stale makes its own read: a promise shared between requests
  // would leave the others waiting for good if the one that started it ended first (workerd drops an
  // ended request's continuations).
  const read = async (logger: Logger): Promise<boolean> => {
    const started = Date.now();
    if (!circuit.allows(started)) return false;
    try {
      // A failed import is retried by the next call.
      loading ??= client({ url, token, signal: () => AbortSignal.timeout(LIMITER_TIMEOUT_MS) }).catch((e) => {
        loading = undefined;
        throw e;
      });
      const from = readStartedAt === 0 ? started - REVOCATION_MARK_MS : readStartedAt - CLOCK_SKEW_MS;
      const members = await (await loading).zrange<string[]>(KEY, from, "+inf", { byScore: true, withScores: true });
      circuit.succeeded(logger);
      for (let i = 0; i + 1 < members.length; i += 2) revoked.set(String(members[i]), Number(members[i + 1]));
      for (const [hash, at] of revoked) if (at < started - REVOCATION_MARK_MS - CLOCK_SKEW_MS) revoked.delete(hash);
      readStartedAt = Math.max(readStartedAt, started);
      return true;
    } catch (e) {
      circuit.failed(logger, e instanceof Error ? e.message : String(e));
      return false;
    }
  };

  const answer = (tokenHash: string): Revocation => (revoked.has(tokenHash) ? "revoked" : "live");
  const check: RevocationCheck = {
    check(tokenHash, logger) {
      if (Date.now() - readStartedAt < SYNC_INTERVAL_MS) return answer(tokenHash);
      return read(logger).then((fresh) => (fresh ? answer(tokenHash) : "unknown"));
    },
  };
  checker = { config, check };
  return check;
}

/**
 * Records revoked tokens (their digests) for every isolate, after their rows are committed, and answers
 * once every isolate's next request is sure to see them (SYNC_INTERVAL_MS after Redis took them). False
 * when Redis is not configured or did not take them: the revocation then reaches an isolate that cached
 * the token within its TTL (30 s), or at once where Redis is unreachable too (that isolate asks the
 * database).
 */
export async function markRevoked(settings: RedisSettings, tokenHashes: string[]): Promise<boolean> {
  const url = settings.UPSTASH_REDIS_REST_URL;
  const token = settings.UPSTASH_REDIS_REST_TOKEN;
  if (!url || !token) return false;
  if (tokenHashes.length === 0) return true;
  try {
    const redis = await client({ url, token, signal: () => AbortSignal.timeout(MARK_TIMEOUT_MS) });
    const now = Date.now();
    const [first, ...rest] = tokenHashes.map((member) => ({ score: now, member }));
    // One transaction: the new members, and the ones every cache entry has outlived dropped.
    await redis
      .multi()
      .zadd(KEY, first, ...rest)
      .zremrangebyscore(KEY, "-inf", now - REVOCATION_MARK_MS - CLOCK_SKEW_MS)
      .exec();
    await new Promise((resolve) => setTimeout(resolve, SYNC_INTERVAL_MS));
    return true;
  } catch {
    return false;
  }
}
