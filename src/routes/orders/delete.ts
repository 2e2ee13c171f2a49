import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, isNull, sql } from "drizzle-orm";
import { invoiceWasSynced, notifyOutbox, recordAccountingChange, syncApplies } from "../../accounting/outbox";
import { invoices, projects } from "../../db/schema";
import { authErrors, errorResponses, notFound } from "../../lib/errors";
import { bearerSecurity, idParam, type Router } from "../../lib/openapi";
import { lockOrder } from "./queries";

const DeletedSchema = z
  .object({ deleted: z.literal(true), id: z.number().int().openapi({ description: "The deleted order (project) id", example: 7 }) })
  .openapi("OrderDeleted");

const route = createRoute({
  method: "delete",
  path: "/orders/{id}",
  tags: ["Orders"],
  summary: "Soft-delete an order",
  description:
    "Soft-deletes the project and its invoice in one transaction and answers `{ \"deleted\": true, \"id\": <id> }`. " +
    "Afterwards GET, PATCH and DELETE of the order answer 404 and the list hides it (a repeated DELETE is 404, not 200). " +
    "An accounting `delete` is queued in the same transaction when the company has accounting sync enabled, or when the " +
    "order's invoice was synced before (e.g. created with `quickbooks_enabled: true`), so no remote invoice outlives its order.",
  security: bearerSecurity,
  request: { params: idParam("Order (project) id") },
  responses: {
    200: { description: "The order was deleted", content: { "application/json": { schema: DeletedSchema } } },
    ...errorResponses(400, 404),
    ...authErrors,
  },
});

export const registerDeleteOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const { companyId } = c.var.auth;
    const outboxIds = await c.var.db.transaction(async (tx) => {
      const order = await lockOrder(tx, companyId, id);
      if (!order) throw notFound("Order");
      const now = sql`now()`;
      await tx.update(projects).set({ deletedAt: now, updatedAt: now }).where(eq(projects.id, id));
      await tx.update(invoices).set({ deletedAt: now, updatedAt: now }).where(and(eq(invoices.projectId, id), isNull(invoices.deletedAt)));
      // No body: the company setting decides, and an invoice synced before is always deleted remotely.
      return syncApplies(undefined, order.companySync) || (await invoiceWasSynced(tx, order.invoice.id))
        ? [await recordAccountingChange(tx, { companyId, projectId: id, invoiceId: order.invoice.id, operation: "delete", payload: {} })]
        : [];
    });
    if (outboxIds.length) notifyOutbox(c.env, outboxIds, c.var.defer);
    return c.json({ deleted: true as const, id }, 200);
  });
