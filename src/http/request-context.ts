import { createMiddleware } from "hono/factory";
import { createDb } from "../platform/db";
import { createLogger } from "../platform/logger";
import type { AppEnv } from "./context";

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * Per-request services (Unkey style): request id, logger, a db on a Pool of its
 * own, and `defer` for work that may outlive the response. The pool ends after deferred work.
 */
export const requestContext = createMiddleware<AppEnv>(async (c, next) => {
  const started = Date.now();
  const incoming = c.req.header("x-request-id");
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
  const logger = createLogger({ request_id: requestId });
  const deferred: Promise<unknown>[] = [];
  // Constructing the Pool opens nothing; the first query connects.
  const { db, pool } = createDb(c.env);

  c.set("requestId", requestId);
  c.set("logger", logger);
  c.set("defer", (task) => deferred.push(task.catch((e) => logger.warn("deferred task failed", { error: e }))));
  c.set("db", db);

  try {
    await next();
  } finally {
    c.header("X-Request-Id", requestId);
    logger.info("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Date.now() - started,
      company_id: c.var.auth?.companyId,
    });
    const done = Promise.allSettled(deferred).then(() => pool.end());
    try {
      c.executionCtx.waitUntil(done);
    } catch {
      // No execution context (not in a Worker): let the promise run on its own.
    }
  }
});
