import { createRoute } from "@hono/zod-openapi";
import type { Router } from "../../http/openapi";
import { jsonContent } from "../../http/schema-once";
import { liveSchema } from "./schema";

const route = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: ["Health"],
  summary: "Liveness",
  description:
    "Public, no authentication and no rate limit. Answers 200 as long as the Worker runs; it touches neither the database nor Redis " +
    "(use `GET /health/ready` for those).",
  security: [],
  responses: {
    200: { description: "The Worker is up", content: jsonContent(liveSchema) },
  },
});

export const registerLive = (api: Router) => api.openapi(route, (c) => c.json({ status: "ok" as const }, 200));
