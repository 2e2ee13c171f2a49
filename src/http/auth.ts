import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { apiTokens } from "../db/schema";
import type { Db } from "../platform/db";
import type { Bindings } from "../platform/env";
import type { AppEnv } from "./context";
import { ApiError } from "./errors";
import { createLimiter, type LimitResult } from "./ratelimit";

const BEARER = /^Bearer ([0-9a-fA-F]{64})$/;
/** last_used_at is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * How long an isolate trusts a token it has checked, without asking the database again: the most a
 * revocation takes to reach every isolate. TOKEN_CACHE_TTL_MS may shorten it (0: check every request),
 * never lengthen it.
 */
export const MAX_TOKEN_CACHE_TTL_MS = 30_000;
export function tokenCacheTtlMs(env: Pick<Bindings, "TOKEN_CACHE_TTL_MS">): number {
  const configured = env.TOKEN_CACHE_TTL_MS === undefined || env.TOKEN_CACHE_TTL_MS === "" ? Number.NaN : Number(env.TOKEN_CACHE_TTL_MS);
  return Number.isFinite(configured) ? Math.min(Math.max(configured, 0), MAX_TOKEN_CACHE_TTL_MS) : MAX_TOKEN_CACHE_TTL_MS;
}
/** Tokens one isolate remembers; the least recently checked goes first. */
const MAX_CACHED_TOKENS = 10_000;

interface CheckedToken {
  tokenId: number;
  companyId: number;
  /** ms since the epoch; null: never used. */
  lastUsedAt: number | null;
  checkedAt: number;
}

/**
 * Per-isolate token → company cache (as Unkey does), keyed by the token's SHA-256 digest, so a warm
 * request spends no database round trip on its token. Only live tokens are remembered: an unknown or
 * revoked token is looked up every time (one round trip, and a 401).
 */
const checked = new Map<string, CheckedToken>();
const inFlight = new Map<string, Promise<CheckedToken | undefined>>();

async function findToken(db: Db, tokenHash: string): Promise<CheckedToken | undefined> {
  const [row] = await db
    .select({ id: apiTokens.id, companyId: apiTokens.companyId, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
    .limit(1);
  return row && { tokenId: row.id, companyId: row.companyId, lastUsedAt: row.lastUsedAt?.getTime() ?? null, checkedAt: Date.now() };
}

/** One lookup per token at a time; the answer replaces (or, for a revoked token, removes) the cached entry. */
function lookUp(db: Db, tokenHash: string): Promise<CheckedToken | undefined> {
  let pending = inFlight.get(tokenHash);
  if (!pending) {
    pending = findToken(db, tokenHash)
      .then((token) => {
        checked.delete(tokenHash);
        if (token) {
          checked.set(tokenHash, token);
          if (checked.size > MAX_CACHED_TOKENS) checked.delete(checked.keys().next().value!);
        }
        return token;
      })
      .finally(() => inFlight.delete(tokenHash));
    inFlight.set(tokenHash, pending);
  }
  return pending;
}

/**
 * The live token for this digest. A cached entry younger than the TTL answers at once; past half the
 * TTL it is also re-checked in the background, so a token in steady use never waits for the lookup
 * while a revocation still lands within the TTL.
 */
async function checkToken(db: Db, tokenHash: string, ttlMs: number, defer: (task: Promise<unknown>) => void) {
  if (ttlMs === 0) return findToken(db, tokenHash);
  const cached = checked.get(tokenHash);
  const age = cached ? Date.now() - cached.checkedAt : Number.POSITIVE_INFINITY;
  if (cached && age < ttlMs) {
    if (age >= ttlMs / 2) defer(lookUp(db, tokenHash));
    return cached;
  }
  return lookUp(db, tokenHash);
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

/**
 * Bearer-token auth and the per-key rate limit. The limiter call runs concurrently with the token
 * check (both keyed by the token's digest), so neither waits for the other; a cached token costs
 * no database round trip at all.
 */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  if (!header) throw unauthenticated("Missing Authorization header");
  const match = BEARER.exec(header.trim());
  if (!match) throw unauthenticated("Authorization must be 'Bearer <64 hex characters>'");
  const tokenHash = await sha256Hex(match[1].toLowerCase());
  const { db, defer, logger } = c.var;

  const [token, limit] = await Promise.all([
    checkToken(db, tokenHash, tokenCacheTtlMs(c.env), defer),
    createLimiter(c.env).limit(tokenHash, defer, logger),
  ]);
  if (!token) throw unauthenticated("Unknown or revoked API token");

  const headers = limit.failedOpen ? {} : rateLimitHeaders(limit);
  if (!limit.allowed) {
    const retryAfter = Math.max(1, Math.ceil((limit.reset - Date.now()) / 1000));
    throw new ApiError(
      429,
      "rate_limited",
      `Rate limit of ${limit.limit} requests per minute exceeded`,
      { retry_after_seconds: retryAfter },
      {
        ...headers,
        "Retry-After": String(retryAfter),
      },
    );
  }

  if (token.lastUsedAt === null || Date.now() - token.lastUsedAt > TOUCH_INTERVAL_MS) {
    // Off the response path; the WHERE keeps concurrent requests (and isolates) from writing twice.
    token.lastUsedAt = Date.now();
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

  c.set("auth", { companyId: token.companyId, tokenId: token.tokenId, tokenHash });
  await next();
  for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
});
