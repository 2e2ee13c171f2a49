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
];

const policies = new WeakMap<Config, MiddlewareHandler>();

/**
 * CORS for the origins in CORS_ALLOWED_ORIGINS (none by default: no CORS headers at all). Hono's
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
      allowHeaders: ["Authorization", "Content-Type", "X-Request-Id", "If-Match", "If-None-Match", "Idempotency-Key"],
      exposeHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
    policies.set(config, policy);
  }
  return policy(c, next);
});
