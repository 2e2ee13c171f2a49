import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { apiTokens, type TokenScope } from "../db/schema/companies";
import type { Db } from "../platform/db";
import { createLimiter, type LimitResult } from "../ratelimit";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { findAccessToken, GRANT_DIGEST_PREFIX, type GrantOfToken, resourceServes, touchGrant } from "./grants";
import { revocationCheck } from "./revocations";

// The scheme is case-insensitive (RFC 9110), the token is hex in either case; an OAuth access token has its prefix (grants.ts).
const BEARER = /^Bearer +((?:crm_at_)?[0-9a-f]{64})$/i;
/** last_used_at is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000;

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

const encoder = new TextEncoder();

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  // Runs on every request: a table lookup per byte instead of a string conversion and padding.
  let hex = "";
  for (const b of digest) hex += HEX[b];
  return hex;
}

/** Tokens one isolate remembers; the least recently checked goes first. */
const MAX_CACHED_TOKENS = 10_000;

interface CheckedToken {
  tokenId: number;
  companyId: number;
  /** Fixed at creation, so a cached entry never holds a stale scope. */
  scope: TokenScope;
  /** ms since the epoch; null: never used. */
  lastUsedAt: number | null;
  /** ms since the epoch; null: never expires. A cached entry answers 401 past it, with no lookup. */
  expiresAt: number | null;
  checkedAt: number;
  /** A background re-check of this entry has started. */
  rechecking?: boolean;
  /** An OAuth access token's grant (grants.ts); tokenId is 0 then. */
  grant?: GrantOfToken;
}

/**
 * Per-isolate token → company cache (as Unkey does), keyed by the token's SHA-256 digest, so a warm
 * request spends no database round trip on its token. Only live tokens are remembered: an unknown or
 * revoked token is looked up every time (one round trip, and a 401).
 */
const checked = new Map<string, CheckedToken>();

async function findToken(db: Db, tokenHash: string, checkedAt: number): Promise<CheckedToken | undefined> {
  if (tokenHash.startsWith(GRANT_DIGEST_PREFIX)) {
    const found = await findAccessToken(db, tokenHash.slice(GRANT_DIGEST_PREFIX.length));
    return found && { ...found, tokenId: 0, checkedAt };
  }
  const [row] = await db
    .select({
      id: apiTokens.id,
      companyId: apiTokens.companyId,
      scope: apiTokens.scope,
      lastUsedAt: apiTokens.lastUsedAt,
      expiresAt: apiTokens.expiresAt,
    })
    .from(apiTokens)
    .where(
      and(
        eq(apiTokens.tokenHash, tokenHash),
        isNull(apiTokens.revokedAt),
        or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, sql`now()`)),
      ),
    )
    .limit(1);
  return (
    row && {
      tokenId: row.id,
      companyId: row.companyId,
      scope: row.scope,
      lastUsedAt: row.lastUsedAt?.getTime() ?? null,
      expiresAt: row.expiresAt?.getTime() ?? null,
      checkedAt,
    }
  );
}

/**
 * Looks the token up and keeps the answer. Each request waits for its own lookup only: a promise shared
 * between requests would leave the others waiting for good if the request that started it ended first
 * (workerd drops an ended request's continuations). An answer counts from when its lookup started, so
 * whichever of two concurrent lookups answers last, a revocation still lands within the TTL.
 */
async function lookUp(db: Db, tokenHash: string): Promise<CheckedToken | undefined> {
  const token = await findToken(db, tokenHash, Date.now());
  checked.delete(tokenHash); // re-inserted last: the map's order is least recently checked first
  if (token) {
    checked.set(tokenHash, token);
    if (checked.size > MAX_CACHED_TOKENS) checked.delete(checked.keys().next().value!);
  }
  return token;
}

/** A token and whether it is still live: settled at once for a lookup, after the revocation check for a cached one. */
interface Checked {
  token: CheckedToken | undefined;
  live: Promise<boolean>;
}

const LIVE = Promise.resolve(true);

/**
 * The live token for this digest. A cached entry younger than the TTL and not expired answers at once,
 * and `live` then says whether the token was revoked meanwhile (revocations.ts: this isolate's view of
 * the revoked tokens in Redis, read again beside the request's other work once over a second old; when
 * Redis cannot tell, the database is asked). Past half the TTL it
 * is also re-checked in the background, so a token in steady use never waits for the lookup.
 */
function checkToken(c: Context<AppEnv>, tokenHash: string): Checked | Promise<Checked> {
  const db = c.get("db");
  const config = c.get("config");
  const ttlMs = config.TOKEN_CACHE_TTL_MS;
  const now = Date.now();
  const revocations = revocationCheck(config);
  // Without a store of revocations this isolate learns of one only from the database: no cache.
  if (ttlMs === 0 || !revocations) return findToken(db, tokenHash, now).then((token) => ({ token, live: LIVE }));
  const cached = checked.get(tokenHash);
  if (cached && cached.expiresAt !== null && cached.expiresAt <= now) {
    checked.delete(tokenHash);
    return { token: undefined, live: LIVE };
  }
  const age = cached ? now - cached.checkedAt : Number.POSITIVE_INFINITY;
  if (cached && age < ttlMs) {
    // One re-check per entry: its answer replaces the entry.
    if (age >= ttlMs / 2 && !cached.rechecking) {
      cached.rechecking = true;
      c.get("defer")(lookUp(db, tokenHash));
    }
    // A grant's revocation is the grant's (every token it issued), an API token's its own.
    const answer = revocations.check(cached.grant?.key ?? tokenHash, c.get("logger"));
    // Settled at once while this isolate's view of the revocations is fresh (revocations.ts).
    if (answer === "live") return { token: cached, live: LIVE };
    if (answer === "revoked") {
      checked.delete(tokenHash);
      return { token: cached, live: Promise.resolve(false) };
    }
    const live = Promise.resolve(answer).then(async (answer) => {
      if (answer === "live") return true;
      if (answer === "revoked") {
        checked.delete(tokenHash);
        return false;
      }
      // Redis could not tell: the database decides (fail closed), and its answer replaces the entry.
      return (await lookUp(db, tokenHash)) !== undefined;
    });
    // Awaited later (after a read's work); a failed database lookup must not count as unhandled meanwhile.
    live.catch(() => {});
    return { token: cached, live };
  }
  return lookUp(db, tokenHash).then((token) => ({ token, live: LIVE }));
}

function rateLimitHeaders(r: LimitResult): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(Math.max(0, r.remaining)),
    "X-RateLimit-Reset": String(Math.ceil(r.reset / 1000)),
  };
}

const unauthenticated = (message: string) =>
  new ApiError(401, "unauthenticated", message, null, { "WWW-Authenticate": 'Bearer realm="api"' });

function rateLimited(limit: LimitResult) {
  const retryAfter = Math.max(1, Math.ceil((limit.reset - Date.now()) / 1000));
  return new ApiError(
    429,
    "rate_limited",
    `Rate limit of ${limit.limit} requests per minute exceeded`,
    { retry_after_seconds: retryAfter },
    { ...rateLimitHeaders(limit), "Retry-After": String(retryAfter) },
  );
}

/** The token of an `Authorization: Bearer <64 hex>` header (scheme case-insensitive), lowercased; 401 otherwise. */
function bearerToken(header: string | undefined): string {
  if (!header) throw unauthenticated("Missing Authorization header");
  const match = BEARER.exec(header.trim());
  if (!match) throw unauthenticated("Authorization must be 'Bearer <64 hex characters>' or an OAuth access token");
  return match[1].toLowerCase();
}

/** The cache key of a bearer token: its digest, marked for an OAuth access token (grants.ts). */
const tokenDigest = async (token: string) => (token.length === 64 ? sha256Hex(token) : GRANT_DIGEST_PREFIX + (await sha256Hex(token)));

/**
 * The header's shape only, with no I/O: runs ahead of routing so a request without a well-formed
 * token is refused before its body is read. The lookup (`authenticate`) runs as route middleware,
 * after the body has arrived.
 */
export const requireBearer = createMiddleware<AppEnv>(async (c, next) => {
  bearerToken(c.req.header("authorization"));
  await next();
});

/** The 401 of a token that is not (or no longer) live. */
export const refusedToken = () => unauthenticated("Unknown, expired or revoked API token");

/**
 * The token of this digest as the request's `auth`; 401 for an unknown, expired or revoked one. A cached
 * token's `live` may still say it was revoked: the caller awaits it before anything is written or answered.
 */
async function signIn(c: Context<AppEnv>, tokenHash: string): Promise<{ token: CheckedToken; live: Promise<boolean> }> {
  const { token, live } = await checkToken(c, tokenHash);
  if (!token) throw refusedToken();
  // A grant's token works only where its resource is served; the grant is its rate-limit key.
  if (token.grant && !resourceServes(token.grant.resource, c.req.url)) throw refusedToken();
  const grant = token.grant && { id: token.grant.id, clientId: token.grant.clientId, userId: token.grant.userId };
  c.set("auth", {
    companyId: token.companyId,
    tokenId: token.tokenId,
    scope: token.scope,
    tokenHash: token.grant?.key ?? tokenHash,
    grant,
  });
  return { token, live };
}

/**
 * The token lookup alone, which the rate limiter does not count: for a request whose work is counted
 * where it runs (an MCP tools/call, counted by the operation it runs with the same token).
 */
export const identify = createMiddleware<AppEnv>(async (c, next) => {
  const { live } = await signIn(c, await tokenDigest(bearerToken(c.req.header("authorization"))));
  if (!(await live)) throw refusedToken();
  await next();
});

/**
 * Counts `n` requests of the signed-in token against the rate limit, as `n` requests over HTTP would
 * be counted (the MCP messages that run no operation); throws the 429 when any of them is refused.
 */
export async function countRequests(c: Context<AppEnv>, n: number): Promise<void> {
  const { tokenHash } = c.get("auth");
  const limiter = createLimiter(c.env);
  const known = limiter.refused(tokenHash);
  if (known) throw rateLimited(known);
  const results = await Promise.all(Array.from({ length: n }, () => limiter.limit(tokenHash, c.get("defer"), c.get("logger"))));
  const refused = results.find((r) => !r.allowed);
  if (refused) throw rateLimited(refused);
}

/** Methods whose work changes nothing: it starts while the limiter answers (see `authenticateWith`). */
const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * Bearer-token auth and the per-key rate limit. The limiter call starts beside the token check (both
 * keyed by the token's digest), so neither waits for the other; a cached token costs no database round
 * trip at all. A read goes further: its work also runs while the limiter answers, so a request whose
 * key has to ask Redis costs one round trip (the slower of Redis and the database), not one after the
 * other. Its answer is sent only if the limiter lets it through; otherwise it is dropped for the 429.
 * A write waits for the limiter, since a refused request must change nothing, unless `readsFirst`:
 * its route then reads while the limiter answers and awaits `c.get("admitted")()` before it writes.
 */
const authenticateWith = (readsFirst: boolean) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const tokenHash = await tokenDigest(bearerToken(c.req.header("authorization")));
    const db = c.get("db");
    const defer = c.get("defer");

    const limiter = createLimiter(c.env);
    // An OAuth access token's key is its grant's, known once the token is (from the cache, on a warm request).
    const byGrant = tokenHash.startsWith(GRANT_DIGEST_PREFIX);
    // A key this isolate already knows to be over its limit is refused before any database work.
    const known = byGrant ? undefined : limiter.refused(tokenHash);
    if (known) throw rateLimited(known);
    // Never rejects: Redis trouble fails open.
    let limiting = byGrant ? undefined : limiter.limit(tokenHash, defer, c.get("logger"));
    const { token, live } = await signIn(c, tokenHash);
    if (!limiting) {
      const key = c.get("auth").tokenHash;
      const refused = limiter.refused(key);
      if (refused) throw rateLimited(refused);
      limiting = limiter.limit(key, defer, c.get("logger"));
    }
    const admitting = limiting;
    c.set("admitted", async () => {
      if (!(await live)) throw refusedToken();
      const limit = await admitting;
      if (!limit.allowed) throw rateLimited(limit);
    });

    const early = readsFirst || SAFE_METHODS.has(c.req.method);
    if (early) await next();
    // A cached token revoked meanwhile: a read's answer is dropped, a write has not started.
    if (!(await live)) {
      if (early) dropAnswer(c);
      throw refusedToken();
    }
    const limit = await limiting;
    if (!limit.allowed) {
      if (early) dropAnswer(c);
      throw rateLimited(limit);
    }
    if (token.lastUsedAt === null || Date.now() - token.lastUsedAt > TOUCH_INTERVAL_MS) {
      // Off the response path; the WHERE keeps concurrent requests (and isolates) from writing twice.
      token.lastUsedAt = Date.now();
      if (token.grant) defer(touchGrant(db, token.grant.id));
      else
        defer(
          db
            .update(apiTokens)
            .set({ lastUsedAt: sql`now()` })
            .where(
              and(
                eq(apiTokens.id, token.tokenId),
                or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`)),
              ),
            ),
        );
    }
    if (!early) await next();
    if (!limit.failedOpen) for (const [k, v] of Object.entries(rateLimitHeaders(limit))) c.res.headers.set(k, v);
  });

export const authenticate = authenticateWith(false);
/** For a write that reads first and awaits `c.get("admitted")()` before its first write. */
export const authenticateReadingFirst = authenticateWith(true);

/**
 * Drops an answer for the 429 that replaces it: its body is cancelled and its headers (an ETag, say)
 * do not reach the refusal. Only the CORS headers, set before the route ran, are kept. Without the
 * `undefined` first, Hono would copy the dropped answer's headers onto the next one it is given.
 */
function dropAnswer(c: Context<AppEnv>) {
  const dropped = c.res;
  dropped.body?.cancel().catch(() => {});
  const kept = new Headers();
  for (const [name, value] of dropped.headers) if (name.startsWith("access-control-")) kept.set(name, value);
  c.res = undefined;
  c.res = new Response(null, { headers: kept });
}

/**
 * Counts a batch's `n` items against the key's batch-item limit (BATCH_ITEMS_LIMIT per window) after the
 * request itself was admitted: all of them, or a 429 that counts none (`details.items_remaining` says how
 * many would fit now). Called before the batch writes anything.
 */
export async function admitBatchItems(c: Context<AppEnv>, n: number): Promise<void> {
  const limit = await createLimiter(c.env).limitItems(c.get("auth").tokenHash, n, c.get("defer"), c.get("logger"));
  if (limit.allowed) return;
  const retryAfter = Math.max(1, Math.ceil((limit.reset - Date.now()) / 1000));
  throw new ApiError(
    429,
    "rate_limited",
    `Batch item limit of ${limit.limit} items per minute exceeded: this batch has ${n}, ${limit.remaining} fit now`,
    { retry_after_seconds: retryAfter, items_limit: limit.limit, items_remaining: limit.remaining },
    { "Retry-After": String(retryAfter) },
  );
}

/** Whether a token of scope `token` may call an operation that needs `needed` (the one rule; the MCP tool list follows it). */
export const scopeAllows = (token: TokenScope, needed: TokenScope) => needed === "read" || token === "write";

/**
 * Refuses (403) a token without the scope an operation needs. Runs right after `authenticate`, before
 * the body is parsed or the handler runs, so a read token never reaches code that writes.
 */
export const requireScope = (needed: TokenScope) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const { scope } = c.get("auth");
    if (!scopeAllows(scope, needed)) {
      throw new ApiError(403, "forbidden", "This token is read-only; this operation needs a token with the write scope", {
        required_scope: needed,
        token_scope: scope,
      });
    }
    await next();
  });
