import { z } from "@hono/zod-openapi";
import { asc } from "drizzle-orm";
import { orderStatuses } from "../../db/schema/orders";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { liveStatuses } from "./queries";
import { MAX_STATUSES, serializeStatus, statusSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/statuses",
  operationId: "listStatuses",
  tags: ["Statuses"],
  summary: "List order statuses",
  description:
    "Every order status of your company, in the shop's order: by `position` (0, 1, 2 … without gaps), then `id`. " +
    `Not paged: a company has at most ${MAX_STATUSES} statuses. An order names its status by id (\`status_id\`).`,
  responses: {
    200: {
      description: "The company's statuses, in order",
      content: jsonContent(() => z.object({ data: z.array(statusSchema()) }).openapi("StatusList")),
    },
  },
});

export const registerListStatuses = (api: Router) =>
  api.openapi(route, async (c) => {
    const db = c.get("db");
    const rows = await db
      .select()
      .from(orderStatuses)
      .where(liveStatuses(c.get("auth").companyId))
      .orderBy(asc(orderStatuses.position), asc(orderStatuses.id));
    return c.json({ data: rows.map(serializeStatus) }, 200);
  });
