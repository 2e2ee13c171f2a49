import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { Config } from "../platform/config";
import type { AppEnv } from "./context";

/** Headers a browser script may read from an answer. */
export const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "ETag",
  "Idempotent-Replayed",
  // A 401's `resource_metadata` (RFC 9728 §5.1): where a browser-based MCP client finds the authorization server.
  "WWW-Authenticate",
];

const policies = new WeakMap<Config, MiddlewareHandler>();

/**
 * The API's CORS (mounted on `/api/v1/*`, the MCP endpoint included): for the origins in CORS_ALLOWED_ORIGINS (none by default: no CORS headers at all). Hono's
 * `cors` answers preflight requests itself, before authentication; other answers get the headers.
 */
export const corsPolicy = createMiddleware<AppEnv>(async (c, next) => {
  const config = c.get("config");
  if (!config.CORS_ALLOWED_ORIGINS.length) return next();
  let policy = policies.get(config);
  if (!policy) {
    policy = cors({
      origin: config.CORS_ALLOWED_ORIGINS,
      allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      allowHeaders: [
        "Authorization",
        "Content-Type",
        "X-Request-Id",
        "If-Match",
        "If-None-Match",
        "Idempotency-Key",
        // Sent by MCP clients on every request after `initialize` (docs/mcp.md).
        "Mcp-Protocol-Version",
      ],
      exposeHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
    policies.set(config, policy);
  }
  return policy(c, next);
});

/**
 * CORS for the OAuth endpoints a browser-based client calls from its own origin (the MCP Inspector, web
 * MCP hosts): the discovery documents, registration, token and revocation (src/oauth/mount.ts). Any
 * origin, never credentials: these endpoints read no cookie (the token endpoint trusts PKCE and refresh
 * tokens), so a page of another origin learns nothing it could not fetch itself. The authorization
 * endpoint and the consent page (a cookie session, CSRF tokens) get no CORS.
 */
export const oauthCors = cors({
  origin: "*",
  allowMethods: ["GET", "POST"],
  // The MCP SDK's discovery sends MCP-Protocol-Version; registration is JSON.
  allowHeaders: ["Authorization", "Content-Type", "MCP-Protocol-Version"],
  exposeHeaders: ["Retry-After"],
  maxAge: 86400,
});
