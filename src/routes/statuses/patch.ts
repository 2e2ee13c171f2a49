import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { applyChange } from "../../changes/change";
import { orderStatuses } from "../../db/schema/orders";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { liveStatuses, statusCount, statusesLock, statusNamed } from "./queries";
import { nameConflict, serializeStatus, statusEnvelopeSchema, statusPatchSchema } from "./schema";

const route = createAuthRoute({
  method: "patch",
  path: "/statuses/{id}",
  operationId: "updateStatus",
  tags: ["Statuses"],
  summary: "Rename, recolor or move an order status",
  description:
    "Changes what the body sends. `position` moves the status there (from 0; past the last status: last) and the statuses in " +
    "between one place towards where it was, so positions stay 0 … n−1; moves sent at the same time are applied one after the " +
    "other, each to the order the one before left. A `name` another status has, ignoring case, is 409 `conflict`.",
  request: {
    params: idParam("Status id"),
    body: { required: true, content: { "application/json": { schema: statusPatchSchema() } } },
  },
  errors: [404, 409],
  responses: {
    200: { description: "The updated status", content: jsonContent(statusEnvelopeSchema) },
  },
});

export const registerPatchStatus = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      // ONE statement under the company's status lock: the status with where it goes, the ones in between
      // moved one place towards where it was, the status itself.
      const move = db.$with("move").as(
        db
          .select({
            id: orderStatuses.id,
            from: sql<number>`${orderStatuses.position}`.as("from_position"),
            to: sql<number>`least(coalesce(${body.position ?? null}::int, ${orderStatuses.position}), ${statusCount(companyId)} - 1)`.as(
              "to_position",
            ),
            takenBy: (body.name === undefined ? sql<number | null>`null::int` : statusNamed(companyId, body.name, id)).as("taken_by"),
          })
          .from(orderStatuses)
          .where(and(liveStatuses(companyId), eq(orderStatuses.id, id))),
      );
      const others = db.$with("others").as(
        db
          .update(orderStatuses)
          .set({
            position: sql`${orderStatuses.position} + case when ${move.to} < ${move.from} then 1 else -1 end`,
            updatedAt: sql`now()`,
          })
          .from(move)
          .where(
            sql`${liveStatuses(companyId)} and ${orderStatuses.id} <> ${move.id} and ${move.takenBy} is null
              and ${orderStatuses.position} between least(${move.from}, ${move.to}) and greatest(${move.from}, ${move.to})`,
          )
          .returning({ id: orderStatuses.id }),
      );
      const status = db.$with("status").as(
        db
          .update(orderStatuses)
          .set({ name: body.name, color: body.color, position: sql`${move.to}`, updatedAt: sql`now()` })
          .from(move)
          .where(sql`${orderStatuses.id} = ${move.id} and ${move.takenBy} is null`)
          .returning(getTableColumns(orderStatuses)),
      );
      const [row] = await change.write({ with: [move, others, status], lock: statusesLock(companyId) }, (q) =>
        q.select({ takenBy: move.takenBy, status: status._.selectedFields }).from(move).leftJoin(status, sql`true`),
      );
      if (!row) throw notFound("Status");
      if (row.takenBy !== null || !row.status) throw nameConflict(body.name ?? "", row.takenBy ?? id);
      return c.json({ status: serializeStatus(row.status) }, 200);
    });
  });
