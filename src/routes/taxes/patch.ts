import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { companySyncSql, type TaxState } from "../../accounting/payload";
import { applyChange } from "../../changes/change";
import { type AccountingEffect, catalogEvent } from "../../changes/effects";
import { invoices, projects, taxes } from "../../db/schema/orders";
import { notFound } from "../../http/errors";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { plainDecimal } from "../../platform/money";
import type { EventCatalog } from "../../webhooks/events-catalog";
import { liveTaxes, taxLock } from "./queries";
import { serializeTaxRate, taxEnvelopeSchema, taxPatchSchema } from "./schema";

const route = createAuthRoute({
  method: "patch",
  // Queues the change of the invoices with this tax for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  path: "/taxes/{id}",
  operationId: "updateTax",
  tags: ["Taxes"],
  summary: "Rename a tax or change its rate",
  description:
    "Changes what the body sends. A new `rate` (a percent from 0 to 100, at most 4 decimals, as a JSON number or a decimal string) " +
    "changes the totals of every live order whose invoice has this tax, exactly as setting the invoice's `tax_id` would: in the same " +
    "statement, each such order's `updated_at` moves on, it gets an `order.updated` webhook event and, where accounting sync applies " +
    "(the company setting), an accounting update with the invoice's new tax. All of it or nothing. A new `name` alone changes no order.",
  request: {
    params: idParam("Tax id"),
    body: { required: true, content: { "application/json": { schema: taxPatchSchema() } } },
  },
  errors: [404],
  responses: {
    200: { description: "The updated tax", content: jsonContent(taxEnvelopeSchema) },
  },
});

export const registerPatchTax = (api: Router, events: EventCatalog) => {
  const orderUpdated = catalogEvent(events, "order.updated");
  return api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      const now = sql`now()`;
      // ONE statement, under the tax's row lock (an order write naming the tax holds it until it commits,
      // so its invoice is seen here): the tax as it was and as it is now, and when its rate changes, the
      // live orders whose invoice has it (locked, project first as every order write does), their invoice
      // and project `updated_at`, an accounting update per invoice when sync applies and an order.updated
      // event per order.
      const before = db.$with("before").as(
        db
          .select({ rate: sql<string>`${taxes.rate}`.as("previous_rate") })
          .from(taxes)
          .where(and(liveTaxes(companyId), eq(taxes.id, id))),
      );
      const tax = db.$with("tax").as(
        db
          .update(taxes)
          .set({ name: body.name, rate: body.rate, updatedAt: now })
          .where(and(liveTaxes(companyId), eq(taxes.id, id)))
          .returning(),
      );
      const rateChanges = body.rate === undefined ? sql`false` : sql`exists (select 1 from ${before} where ${before.rate} <> ${body.rate})`;
      // An order is a live project with its live default invoice.
      const orders = db.$with("orders").as(
        db
          .select({ projectId: sql<number>`${projects.id}`.as("project_id"), invoiceId: sql<number>`${invoices.id}`.as("invoice_id") })
          .from(projects)
          .innerJoin(invoices, and(eq(invoices.projectId, projects.id), eq(invoices.isDefault, true), isNull(invoices.deletedAt)))
          .where(and(eq(invoices.companyId, companyId), eq(invoices.taxId, id), isNull(projects.deletedAt), rateChanges))
          .for("update", { of: [projects, invoices] }),
      );
      const invoice = db.$with("invoice").as(
        db
          .update(invoices)
          .set({ updatedAt: now })
          .where(inArray(invoices.id, db.select({ id: orders.invoiceId }).from(orders)))
          .returning(),
      );
      const project = db.$with("project").as(
        db
          .update(projects)
          .set({ updatedAt: now })
          .where(inArray(projects.id, db.select({ id: orders.projectId }).from(orders)))
          .returning({ id: projects.id }),
      );
      // What PATCH /orders/{id} queues for a tax_id change: the invoice's tax state after it.
      const taxUpdate = (rate: string, exempt: boolean): AccountingEffect => ({
        projectId: invoice.projectId,
        invoiceId: invoice.id,
        operation: "update",
        payload: { changes: { tax: { tax_id: id, rate: plainDecimal(rate), tax_exempt: exempt } satisfies TaxState } },
        from: sql`from ${invoice} where ${invoice.taxExempt} = ${exempt} and ${companySyncSql(companyId)}`,
      });
      const [row] = await change.write(
        {
          with: [before, tax, orders, invoice, project],
          lock: taxLock(companyId, id),
          accounting: body.rate === undefined ? [] : [taxUpdate(body.rate, false), taxUpdate(body.rate, true)],
          events: [orderUpdated({ id: project.id, from: project })],
        },
        (q) => q.select({ tax: tax._.selectedFields }).from(tax),
      );
      if (!row) throw notFound("Tax");
      return c.json({ tax: serializeTaxRate(row.tax) }, 200);
    });
  });
};
