import { z } from "@hono/zod-openapi";
import { schemaOnce } from "../../http/schema-once";

export const liveSchema = schemaOnce(() => z.object({ status: z.literal("ok") }).openapi("Health"));

/** One dependency's state; `memory` means the in-isolate limiter (local development only), which has nothing to reach. */
export const checkStateSchema = schemaOnce(() =>
  z.enum(["ok", "memory", "not_configured", "unreachable", "timeout"]).openapi("HealthCheckState"),
);

export const readySchema = schemaOnce(() =>
  z
    .object({
      status: z.literal("ready"),
      checks: z.object({ database: checkStateSchema(), redis: checkStateSchema() }),
    })
    .openapi("Readiness"),
);
