import { and, eq, isNull, sql } from "drizzle-orm";
import { applyChange } from "../../changes/change";
import { invoices, taxes } from "../../db/schema/orders";
import { ApiError, notFound } from "../../http/errors";
import { createAuthRoute, deletedSchema, idParam, jsonContent, type Router } from "../../http/openapi";
import { liveTaxes, taxLock } from "./queries";

const route = createAuthRoute({
  method: "delete",
  path: "/taxes/{id}",
  operationId: "deleteTax",
  tags: ["Taxes"],
  summary: "Delete a tax",
  description:
    "Removes the tax. While the invoice of a live order has it, the answer is 409 `conflict` with `details.live_invoices` " +
    "(how many): give those invoices another tax (or none) first. Deleted orders keep it, and their totals with it. " +
    'Answers `{ "deleted": true, "id": <id> }`; a repeated DELETE is 404.',
  request: { params: idParam("Tax id") },
  errors: [404, 409],
  responses: {
    200: {
      description: "The tax was deleted",
      content: jsonContent(() => deletedSchema("TaxRateDeleted", "The deleted tax's id", 3)),
    },
  },
});

export const registerDeleteTax = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      // ONE statement under the tax's row lock (an order write naming the tax holds it until it commits, so
      // the count sees its invoice): the tax with the live invoices that have it, deleted when there are none.
      const target = db.$with("target").as(
        db
          .select({
            id: taxes.id,
            invoices: sql<number>`(select count(*)::int from ${invoices}
              where ${and(eq(invoices.companyId, companyId), eq(invoices.taxId, id), isNull(invoices.deletedAt))})`.as("live_invoices"),
          })
          .from(taxes)
          .where(and(liveTaxes(companyId), eq(taxes.id, id))),
      );
      const deleted = db
        .$with("deleted")
        .as(
          db
            .update(taxes)
            .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
            .from(target)
            .where(sql`${taxes.id} = ${target.id} and ${target.invoices} = 0`)
            .returning({ id: taxes.id }),
        );
      const [row] = await change.write({ with: [target, deleted], lock: taxLock(companyId, id) }, (q) =>
        q.select({ invoices: target.invoices, deleted: sql<boolean>`exists (select 1 from ${deleted})` }).from(target),
      );
      if (!row) throw notFound("Tax");
      if (!row.deleted) {
        throw new ApiError(409, "conflict", `The tax is on ${row.invoices} live invoice(s): give them another tax first`, {
          live_invoices: row.invoices,
        });
      }
      return c.json({ deleted: true as const, id }, 200);
    });
  });
