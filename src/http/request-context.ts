import { createMiddleware } from "hono/factory";
import type { ActorType } from "../db/schema/users";
import { createDb, inSessionTransaction } from "../platform/db";
import { createLogger, redactText } from "../platform/logger";
import type { AppEnv, Auth } from "./context";

/** Who caused a change (an event's `actor`, an audit entry's): its kind and its id as text (null for `system`). */
export interface Actor {
  type: ActorType;
  id: string | null;
}

/** Who caused a change and in which request (null: not a request's, such as the cron's or a queue consumer's). */
export interface Origin {
  actor: Actor;
  requestId: string | null;
}

/** What the cron pass, the queue consumers and the operator's CLI cause. */
export const SYSTEM_ORIGIN: Origin = { actor: { type: "system", id: null }, requestId: null };

/**
 * Who an API request acts as: the one place that says it (events and audit entries take it from here).
 * A bearer token is `token` with the token's id, an OAuth access token `oauth_grant` with its grant's id.
 */
export const requestActor = (auth: Auth): Actor =>
  auth.grant ? { type: "oauth_grant", id: String(auth.grant.id) } : { type: "token", id: String(auth.tokenId) };

/** The origin of an API request's changes: its actor and its request id (`X-Request-Id`). */
export const requestOrigin = (c: { get(key: "auth"): Auth; get(key: "requestId"): string }): Origin => ({
  actor: requestActor(c.get("auth")),
  requestId: c.get("requestId"),
});

/** What a request id is: the caller's `X-Request-Id` when it matches, else a UUID. */
export const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** The proof approvals' public page (settings/approval-page.tsx): `/approve/{token}`. */
const APPROVAL_LINK = "/approve/";
/** What marks a path segment as an e-mail address (GET /clients/{email}), sent plain or percent-encoded. */
const EMAIL_MARK = /@|%40/i;

/**
 * The path as the access log writes it: personal data stays out, so each segment holding an e-mail
 * address is written `{email}`, and an approval link's token `{token}`. Segment by segment, in time linear in the path's length (a pattern
 * such as `/[^/]*@[^/]*\/g` rescans a long segment from each of its characters: quadratic).
 */
export function loggedPath(path: string): string {
  // A proof approval's public link: its token is a credential, never logged.
  if (path.startsWith(APPROVAL_LINK)) return `${APPROVAL_LINK}{token}`;
  if (!EMAIL_MARK.test(path)) return path;
  return path
    .split("/")
    .map((segment) => (EMAIL_MARK.test(segment) ? "{email}" : segment))
    .join("/");
}

/**
 * The path and query string as the request log keeps them (src/http/request-log.ts): the path as
 * `loggedPath` writes it, each `q` value (search text) as `[redacted]`, each other value holding an
 * e-mail address as `{email}`, and what the logger redacts from any text (long hex, credentials).
 */
export function loggedTarget(url: string): string {
  const { pathname, search } = new URL(url);
  if (!search) return loggedPath(pathname);
  const query = search
    .slice(1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (eq < 0) return pair;
      if (name === "q") return "q=[redacted]";
      return EMAIL_MARK.test(pair.slice(eq + 1)) ? `${name}={email}` : pair;
    })
    .join("&");
  return redactText(`${loggedPath(pathname)}?${query}`);
}

/** The request's id: the caller's `X-Request-Id` when it is 1–128 characters of `[A-Za-z0-9_.:-]`, else a new UUID. */
export const requestIdFor = (incoming: string | null | undefined) =>
  incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();

/**
 * The request's id, before anything can answer (a missing setting's 500 included): the caller's
 * `X-Request-Id` when it is 1–128 characters of `[A-Za-z0-9_.:-]`, else a new UUID. Every answer carries
 * it as `X-Request-Id`, and every error body as `error.request_id`.
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = requestIdFor(c.req.header("x-request-id"));
  c.set("requestId", id);
  try {
    await next();
  } finally {
    // On the answer itself: Hono's c.header() after the handler copies the whole Response to add one header.
    try {
      c.res.headers.set("X-Request-Id", id);
    } catch {
      c.header("X-Request-Id", id); // an answer with immutable headers
    }
  }
});

/**
 * Per-request services (Unkey style): logger (with the request id), the database (SQL over HTTP: nothing is
 * opened or held by the request, so a slow caller holds no connection), `transaction` for the rare
 * interactive transaction (a WebSocket session of its own, ended after the response), and `defer`
 * for work that may outlive the response.
 */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  const requestId = c.get("requestId");
  const logger = createLogger({ request_id: requestId });
  const deferred: Promise<unknown>[] = [];
  const defer = (task: Promise<unknown>) => void deferred.push(task.catch((e) => logger.warn("deferred task failed", { error: e })));

  c.set("logger", logger);
  c.set("defer", defer);
  c.set("db", createDb(c.env));
  c.set("transaction", (work) => inSessionTransaction(c.env, defer, work));

  try {
    await next();
  } finally {
    logger.info("request", {
      method: c.req.method,
      path: loggedPath(c.req.path),
      status: c.res.status,
      duration_ms: Date.now() - started,
      company_id: c.get("auth")?.companyId,
    });
    // Includes the end of a WebSocket session, if the request opened one.
    if (deferred.length) {
      const done = Promise.allSettled(deferred);
      try {
        c.executionCtx.waitUntil(done);
      } catch {
        // No execution context (not in a Worker): let the promise run on its own.
      }
    }
  }
});
