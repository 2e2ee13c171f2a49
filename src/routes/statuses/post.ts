import { sql } from "drizzle-orm";
import { applyIdempotentChange } from "../../changes/change";
import { orderStatuses } from "../../db/schema/orders";
import { createAuthRoute, jsonContent, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { liveStatuses, statusesLock, statusNamed } from "./queries";
import { MAX_STATUSES, nameConflict, serializeStatus, statusCreateSchema, statusEnvelopeSchema, tooManyStatuses } from "./schema";

const route = createAuthRoute({
  method: "post",
  path: "/statuses",
  operationId: "createStatus",
  idempotent: true,
  tags: ["Statuses"],
  summary: "Create an order status",
  description:
    "Adds a status at `position` (from 0; the statuses from there on move one down), or last without it or past the end. " +
    "`name` (1–100 characters) must not be another status's name, ignoring case: 409 `conflict` naming the status that has it. " +
    `A company has at most ${MAX_STATUSES} statuses (409 \`conflict\` beyond).`,
  request: { body: { required: true, content: { "application/json": { schema: statusCreateSchema() } } } },
  errors: [409],
  responses: {
    200: { description: "The created status", content: jsonContent(statusEnvelopeSchema) },
  },
});

export const registerCreateStatus = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    return applyIdempotentChange(c, async (change) => {
      const { db, companyId } = change;
      // ONE statement under the company's status lock: the count and any status with the name, the statuses
      // from the new position on moved down one, the new status.
      const live = db.$with("live").as(
        db
          .select({
            n: sql<number>`count(*)::int`.as("n"),
            takenBy: statusNamed(companyId, body.name).as("taken_by"),
          })
          .from(orderStatuses)
          .where(liveStatuses(companyId)),
      );
      const allowed = sql`(select ${live.takenBy} is null and ${live.n} < ${MAX_STATUSES} from ${live})`;
      // least() skips a null: without a position, the count (last).
      const at = sql<number>`(select least(${body.position ?? null}::int, ${live.n}) from ${live})`;
      const moved = db.$with("moved").as(
        db
          .update(orderStatuses)
          .set({ position: sql`${orderStatuses.position} + 1`, updatedAt: sql`now()` })
          .where(sql`${liveStatuses(companyId)} and ${orderStatuses.position} >= ${at} and ${allowed}`)
          .returning({ id: orderStatuses.id }),
      );
      const status = insertFrom(
        db,
        "status",
        orderStatuses,
        { companyId, name: body.name, color: body.color, position: at },
        sql`where ${allowed}`,
      );
      const [row] = await change.write({ with: [live, moved, status], lock: statusesLock(companyId) }, (q) =>
        q.select({ n: live.n, takenBy: live.takenBy, status: status._.selectedFields }).from(live).leftJoin(status, sql`true`),
      );
      if (row.takenBy !== null) throw nameConflict(body.name, row.takenBy);
      if (!row.status) throw tooManyStatuses();
      return { status: 200 as const, body: { status: serializeStatus(row.status) } };
    });
  });
