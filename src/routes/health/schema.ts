import { z } from "@hono/zod-openapi";

export const LiveSchema = z.object({ status: z.literal("ok") }).openapi("Health");

/** One dependency's state; `memory` means the in-isolate limiter (local development only), which has nothing to reach. */
export const CheckState = z.enum(["ok", "memory", "not_configured", "unreachable", "timeout"]).openapi("HealthCheckState");

export const ReadySchema = z
  .object({
    status: z.literal("ready"),
    checks: z.object({ database: CheckState, redis: CheckState }),
  })
  .openapi("Readiness");
