import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { apiTokens } from "../db/schema";
import type { Db } from "../platform/db";
import type { AppEnv } from "./context";
import { discardBody } from "./json-body";
import { ApiError } from "./errors";
import { createLimiter, type LimitResult } from "./ratelimit";

// The scheme is case-insensitive (RFC 9110), the token is hex in either case.
const BEARER = /^Bearer +([0-9a-f]{64})$/i;
/** last_used_at is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000;

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function findToken(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ id: apiTokens.id, companyId: apiTokens.companyId, lastUsedAt: apiTokens.lastUsedAt })
    .from(apiTokens)
    .where(and(eq(apiTokens.tokenHash, tokenHash), isNull(apiTokens.revokedAt)))
    .limit(1);
  return row;
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
  if (!match) throw unauthenticated("Authorization must be 'Bearer <64 hex characters>'");
  return match[1].toLowerCase();
}

/**
 * The header's shape only, with no I/O: runs ahead of routing so a request without a well-formed
 * token is refused before its body is read. The lookup (`authenticate`) runs as route middleware,
 * after the body has arrived.
 */
export const requireBearer = createMiddleware<AppEnv>(async (c, next) => {
  try {
    bearerToken(c.req.header("authorization"));
  } catch (e) {
    await discardBody(c.req.raw);
    throw e;
  }
  await next();
});

/**
 * Bearer-token auth and the per-key rate limit. The limiter call runs concurrently with the
 * token lookup (both keyed by the token's digest), so neither round trip waits for the other.
 */
export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const tokenHash = await sha256Hex(bearerToken(c.req.header("authorization")));
  const { db, defer, logger } = c.var;

  const limiter = createLimiter(c.env);
  // A key this isolate already knows to be over its limit is refused before any database work.
  const known = limiter.refused(tokenHash);
  if (known) throw rateLimited(known);
  const [token, limit] = await Promise.all([findToken(db, tokenHash), limiter.limit(tokenHash, defer, logger)]);
  if (!token) throw unauthenticated("Unknown or revoked API token");

  const headers = limit.failedOpen ? {} : rateLimitHeaders(limit);
  if (!limit.allowed) throw rateLimited(limit);

  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    // Off the response path; the WHERE keeps concurrent requests from writing twice.
    defer(
      db
        .update(apiTokens)
        .set({ lastUsedAt: sql`now()` })
        .where(
          and(eq(apiTokens.id, token.id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, sql`now() - interval '1 minute'`))),
        ),
    );
  }

  c.set("auth", { companyId: token.companyId, tokenId: token.id, tokenHash });
  await next();
  for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
});
