import type { z } from "@hono/zod-openapi";
import { z as zod } from "@hono/zod-openapi";
import type { JSONValue } from "hono/utils/types";
import { notFound } from "../../http/errors";
import { jsonWithRaw, RawJson } from "../../http/exact-json";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { EVENT_RETENTION_DAYS, findEvent, payloadsOf } from "../../webhooks/feed";
import { EVENT_ID } from "./schema";

export function registerGetEvent(api: Router, catalog: EventCatalog, eventSchema: () => z.ZodType) {
  const route = createAuthRoute({
    method: "get",
    path: "/events/{id}",
    operationId: "getEvent",
    tags: ["Events"],
    summary: "Get an event",
    description:
      `One of the company's events of the last ${EVENT_RETENTION_DAYS} days by its id (\`evt_…\`, the \`webhook-id\` of its deliveries), ` +
      "exactly as its webhook deliveries send it. Another company's event, or an older one, is 404.",
    request: {
      params: zod.object({
        id: zod
          .string()
          .max(36)
          .regex(EVENT_ID, "An event id: evt_ and 32 hexadecimal digits")
          .openapi({ param: { name: "id", in: "path" }, description: "The event's id", example: "evt_6f1c0e8a2b9d4c1e8f7a6b5c4d3e2f10" }),
      }),
    },
    errors: [404],
    responses: {
      200: { description: "The event", content: jsonContent(eventSchema) },
    },
  });

  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const row = await findEvent(c.get("db"), c.get("auth").companyId, id);
    if (!row) throw notFound("Event");
    const [payload] = await payloadsOf(c.get("db"), [row], (type) => catalog[type]?.render);
    return jsonWithRaw<JSONValue, 200>(c, new RawJson(payload), 200);
  });
}
