import { createRoute, type z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { ApiError, errorResponses } from "../../http/errors";
import type { Router } from "../../http/openapi";
import { jsonContent } from "../../http/schema-once";
import { DeadlineExceeded, withDeadline } from "../../platform/deadline";
import type { Logger } from "../../platform/logger";
import { upstashRedis } from "../../platform/redis";
import { type checkStateSchema, readySchema } from "./schema";

/** Each dependency gets this long; a load balancer's probe should not hang on a dead one. */
export const READY_CHECK_TIMEOUT_MS = 2000;

type State = z.infer<ReturnType<typeof checkStateSchema>>;

const route = createRoute({
  operationId: "getReadiness",
  method: "get",
  path: "/health/ready",
  tags: ["Health"],
  summary: "Readiness: database and Redis reachable",
  description:
    "Public, no authentication and no rate limit; meant for operators and load balancers. Runs `select 1` on the database and " +
    `\`PING\` on the Upstash Redis of the rate limiter, each with a ${READY_CHECK_TIMEOUT_MS} ms deadline. ` +
    "503 `service_unavailable` when Redis is not configured or either is unreachable or too slow (a Worker without DATABASE_URL answers every request 500); `details` names the state of each. " +
    "Connection strings and driver errors are never included.",
  security: [],
  responses: {
    200: { description: "Both dependencies answered", content: jsonContent(readySchema) },
    ...errorResponses(503),
  },
});

/** Runs one probe under the deadline; the error itself goes to the log only (it may name hosts). */
async function probe(name: string, logger: Logger, run: () => Promise<unknown>): Promise<State> {
  try {
    await withDeadline(READY_CHECK_TIMEOUT_MS, run);
    return "ok";
  } catch (e) {
    const state = e instanceof DeadlineExceeded ? "timeout" : "unreachable";
    logger.warn("readiness check failed", { dependency: name, state, error: e instanceof Error ? e.message : String(e) });
    return state;
  }
}

export const registerReady = (api: Router) =>
  api.openapi(route, async (c) => {
    const db = c.get("db");
    const logger = c.get("logger");
    const config = c.get("config");
    // The parsed settings: without DATABASE_URL the request never gets here (loadConfig answers 500).
    const { RATE_LIMIT_BACKEND, UPSTASH_REDIS_REST_URL: url, UPSTASH_REDIS_REST_TOKEN: token } = config;
    const [database, redis] = await Promise.all([
      probe("database", logger, () => db.execute(sql`select 1`)),
      RATE_LIMIT_BACKEND === "memory"
        ? ("memory" as const)
        : url && token
          ? probe("redis", logger, () => upstashRedis({ url, token }).ping())
          : ("not_configured" as const),
    ]);
    const checks = { database, redis };
    const down = Object.entries(checks).filter(([, state]) => state !== "ok" && state !== "memory");
    if (down.length) {
      const what = down.map(([name, state]) => `${name} ${state.replace("_", " ")}`).join(", ");
      throw new ApiError(503, "service_unavailable", `Not ready: ${what}`, checks);
    }
    return c.json({ status: "ready" as const, checks }, 200);
  });
