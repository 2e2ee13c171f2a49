import { type SQLWrapper, sql, type WithSubquery } from "drizzle-orm";
import { changedFields, eventOf } from "../../changes/effects";
import { orderEvents } from "./events";

/** A CTE of a write's statement with an order's project id and status id (columns of that CTE). */
export interface OrderStatusRows {
  cte: WithSubquery;
  projectId: SQLWrapper;
  statusId: SQLWrapper;
}

/**
 * The `order.status_changed` event of a statement that may change orders' `status_id`: written once for
 * each row of `after` (the projects as the statement leaves them) whose status differs from what `before`
 * (the same projects as the statement found them: a CTE read in the same statement, such as its row
 * locks) had, with `previous_attributes: { status_id: <before> }`. Every writer of `status_id` (PATCH
 * /orders/{id}, and any write of many orders) puts it beside its `order.updated`, after it in the list so
 * its event id follows.
 */
export const statusChangedEvent = (after: OrderStatusRows, before: OrderStatusRows) =>
  eventOf(orderEvents, "order.status_changed", {
    id: sql`${after.projectId}`,
    from: sql`from ${after.cte} join ${before.cte} on ${before.projectId} = ${after.projectId}
      where ${after.statusId} is distinct from ${before.statusId}`,
    previous: changedFields({ status_id: [before.statusId, after.statusId] }),
  });
