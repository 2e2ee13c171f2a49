import { and, eq, sql } from "drizzle-orm";
import { applyChange } from "../../changes/change";
import { orderStatuses } from "../../db/schema/orders";
import { ApiError, notFound } from "../../http/errors";
import { createAuthRoute, deletedSchema, idParam, jsonContent, type Router } from "../../http/openapi";
import { countedTotal } from "../../platform/list-counts";
import { liveStatuses, statusesLock } from "./queries";

const route = createAuthRoute({
  method: "delete",
  path: "/statuses/{id}",
  operationId: "deleteStatus",
  tags: ["Statuses"],
  summary: "Delete an order status",
  description:
    "Removes the status; the ones after it move up one place. While a live order has it, the answer is 409 `conflict` with " +
    "`details.live_orders` (how many): move those orders to another status first. Deleted orders keep naming it. " +
    'Answers `{ "deleted": true, "id": <id> }`; a repeated DELETE is 404.',
  request: { params: idParam("Status id") },
  errors: [404, 409],
  responses: {
    200: {
      description: "The status was deleted",
      content: jsonContent(() => deletedSchema("StatusDeleted", "The deleted status's id", 4)),
    },
  },
});

export const registerDeleteStatus = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      // ONE statement, under the company's status lock and the status's row lock (an order write naming
      // the status holds it until it commits, so the count below sees that order): the status with the
      // number of live orders that have it (the list's counter), deleted when there are none, and the
      // statuses after it moved up one.
      const target = db.$with("target").as(
        db
          .select({
            id: orderStatuses.id,
            position: sql<number>`${orderStatuses.position}`.as("target_position"),
            orders: countedTotal(companyId, `orders/status_id=${id}`).as("live_orders"),
          })
          .from(orderStatuses)
          .where(and(liveStatuses(companyId), eq(orderStatuses.id, id))),
      );
      const deleted = db
        .$with("deleted")
        .as(
          db
            .update(orderStatuses)
            .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
            .from(target)
            .where(sql`${orderStatuses.id} = ${target.id} and ${target.orders} = 0`)
            .returning({ id: orderStatuses.id }),
        );
      const after = db.$with("after").as(
        db
          .update(orderStatuses)
          .set({ position: sql`${orderStatuses.position} - 1`, updatedAt: sql`now()` })
          .from(target)
          .where(sql`${liveStatuses(companyId)} and ${orderStatuses.position} > ${target.position} and exists (select 1 from ${deleted})`)
          .returning({ id: orderStatuses.id }),
      );
      const [row] = await change.write({ with: [target, deleted, after], lock: statusesLock(companyId, id) }, (q) =>
        q.select({ orders: target.orders, deleted: sql<boolean>`exists (select 1 from ${deleted})` }).from(target),
      );
      if (!row) throw notFound("Status");
      if (!row.deleted) {
        throw new ApiError(409, "conflict", `The status is in use by ${row.orders} live order(s): move them to another status first`, {
          live_orders: row.orders,
        });
      }
      return c.json({ deleted: true as const, id }, 200);
    });
  });
