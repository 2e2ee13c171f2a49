import { createMiddleware } from "hono/factory";
import { createDb, inSessionTransaction } from "../platform/db";
import { createLogger } from "../platform/logger";
import type { AppEnv } from "./context";

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** A path segment holding an e-mail address (GET /clients/{email}), sent plain or percent-encoded. */
const EMAIL_SEGMENT = /[^/]*(@|%40)[^/]*/gi;

/**
 * The request's id, before anything can answer (a missing setting's 500 included): the caller's
 * `X-Request-Id` when it is 1–128 characters of `[A-Za-z0-9_.:-]`, else a new UUID. Every answer carries
 * it as `X-Request-Id`, and every error body as `error.request_id`.
 */
export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
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
      // Personal data stays out of the access log: an address in the path is logged as {email}.
      path: c.req.path.replace(EMAIL_SEGMENT, "{email}"),
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
