import { createRoute } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { findLiveClient } from "../clients/queries";
import { notifyOutbox, recordAccountingChange, syncApplies } from "../../accounting/outbox";
import { invoices, projects } from "../../db/schema";
import { authErrors, errorResponses, invalid, notFound } from "../../lib/errors";
import { bearerSecurity, idParam, type Router } from "../../lib/openapi";
import { accountingUpdate } from "./accounting";
import { findStatus, findTax, lockOrder, totalsOf, unknownReference } from "./queries";
import {
  invoiceColumns, OrderEnvelopeSchema, OrderPatchSchema, PERCENT_MESSAGE, percentOutOfRange, projectColumns, serializeInvoice, serializeProject,
} from "./schema";

const route = createRoute({
  method: "patch",
  path: "/orders/{id}",
  tags: ["Orders"],
  summary: "Update an order",
  description:
    "Partial update in one transaction: project fields change the project, invoice fields the default invoice; " +
    "`deadline` also sets the invoice due date and `client_id` changes both. The body must hold at least one field besides " +
    "`quickbooks_enabled`; unknown fields are 400. `client_id`, `status_id` and `tax_id` must name rows of your company " +
    "(a missing, deleted or other company's row is 400 `invalid_request` naming the field; nothing changes). " +
    "`tax_id` 0 or null removes the tax; `status_id` null clears the status. `discount_amount_type` accepts `fixed` and `amount` " +
    "for `fixed_amount`. A percentage discount must stay within 0–100, also against the stored type when only one of the two is sent. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting) and an accounting-relevant field was sent " +
    "(description, deadline, client_id, client_notes, discount fields, tax_id, tax_exempt), a sparse accounting `update` is queued in the same transaction.",
  security: bearerSecurity,
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: OrderPatchSchema } } },
  },
  responses: {
    200: { description: "The updated project and invoice (with totals)", content: { "application/json": { schema: OrderEnvelopeSchema } } },
    ...errorResponses(400, 404, 413, 415),
    ...authErrors,
  },
});

export const registerPatchOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { companyId } = c.var.auth;
    const result = await c.var.db.transaction(async (tx) => {
      const order = await lockOrder(tx, companyId, id);
      if (!order) throw notFound("Order");
      // One connection in a transaction: statements run one after another.
      const client = body.client_id !== undefined ? await findLiveClient(tx, companyId, body.client_id) : undefined;
      const status = body.status_id ? await findStatus(tx, companyId, body.status_id) : undefined;
      const tax = body.tax_id ? await findTax(tx, companyId, body.tax_id) : undefined;
      const details = [
        ...(body.client_id !== undefined && !client ? [unknownReference("client_id", "client")] : []),
        ...(body.status_id && !status ? [unknownReference("status_id", "order status")] : []),
        ...(body.tax_id && !tax ? [unknownReference("tax_id", "tax")] : []),
      ];
      // Checked against the stored values when the body sends only one of amount and type.
      const discountSent = body.discount_amount !== undefined || body.discount_amount_type !== undefined;
      if (discountSent && percentOutOfRange(body.discount_amount ?? order.invoice.discountAmount, body.discount_amount_type ?? order.invoice.discountAmountType)) {
        details.push({ field: body.discount_amount !== undefined ? "discount_amount" : "discount_amount_type", message: PERCENT_MESSAGE });
      }
      if (details.length) throw invalid("Invalid request body", details);

      const projectChanges = projectColumns(body);
      const invoiceChanges = invoiceColumns(body);
      const project = Object.keys(projectChanges).length
        ? (await tx.update(projects).set({ ...projectChanges, updatedAt: sql`now()` }).where(eq(projects.id, id)).returning())[0]
        : order.project;
      const invoice = Object.keys(invoiceChanges).length
        ? (await tx.update(invoices).set({ ...invoiceChanges, updatedAt: sql`now()` }).where(eq(invoices.id, order.invoice.id)).returning())[0]
        : order.invoice;
      const { totals, taxRate } = await totalsOf(tx, invoice);
      const changes = syncApplies(body.quickbooks_enabled, order.companySync) ? accountingUpdate(body, invoice, taxRate) : undefined;
      const outboxIds = changes
        ? [await recordAccountingChange(tx, { companyId, projectId: id, invoiceId: invoice.id, operation: "update", payload: { changes } })]
        : [];
      return { project, invoice, totals, outboxIds };
    });
    if (result.outboxIds.length) notifyOutbox(c.env, result.outboxIds, c.var.defer);
    return c.json({ project: serializeProject(result.project), invoice: serializeInvoice(result.invoice, result.totals) }, 200);
  });
