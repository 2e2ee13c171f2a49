import { createRoute } from "@hono/zod-openapi";
import { findLiveClient } from "../clients/queries";
import { notifyOutbox, recordAccountingChange, syncApplies } from "../../accounting/outbox";
import { invoices, projects } from "../../db/schema";
import { authErrors, errorResponses, invalid } from "../../lib/errors";
import { bearerSecurity, type Router } from "../../lib/openapi";
import { companySyncFlag, unknownReference } from "./queries";
import { invoiceTerms, OrderCreateSchema, OrderEnvelopeSchema, serializeInvoice, serializeProject } from "./schema";
import { invoiceTotals } from "./totals";

const route = createRoute({
  method: "post",
  path: "/orders",
  tags: ["Orders"],
  summary: "Create an order (project with its default invoice)",
  description:
    "Creates the project and its default invoice in one transaction. `client_id` must be a live client of your company; " +
    "a missing, soft-deleted or other company's client is the same 400 `invalid_request` with `details: [{ field: \"client_id\" }]`. " +
    "The invoice starts with the client's tax exemption (flag and reason), no tax row, no discount and no items. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting), an accounting `create` is queued in the same transaction.",
  security: bearerSecurity,
  request: { body: { required: true, content: { "application/json": { schema: OrderCreateSchema } } } },
  responses: {
    200: { description: "The created project and invoice (with totals)", content: { "application/json": { schema: OrderEnvelopeSchema } } },
    ...errorResponses(400, 413, 415),
    ...authErrors,
  },
});

export const registerCreateOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const { companyId } = c.var.auth;
    const { project, invoice, outboxIds } = await c.var.db.transaction(async (tx) => {
      const client = await findLiveClient(tx, companyId, body.client_id);
      if (!client) throw invalid("Invalid request body", [unknownReference("client_id", "client")]);
      const companySync = body.quickbooks_enabled === undefined && (await companySyncFlag(tx, companyId));
      const [project] = await tx
        .insert(projects)
        .values({ companyId, clientId: client.id, title: body.title, description: body.description ?? null })
        .returning();
      const [invoice] = await tx
        .insert(invoices)
        .values({ companyId, projectId: project.id, clientId: client.id, taxExempt: client.taxExempt, taxExemptReason: client.taxExemptReason })
        .returning();
      const outboxIds = syncApplies(body.quickbooks_enabled, companySync)
        ? [await recordAccountingChange(tx, { companyId, projectId: project.id, invoiceId: invoice.id, operation: "create", payload: {} })]
        : [];
      return { project, invoice, outboxIds };
    });
    if (outboxIds.length) notifyOutbox(c.env, outboxIds, c.var.defer);
    // A new invoice has no items or payments yet.
    const totals = invoiceTotals(invoiceTerms(invoice, null), [], []);
    return c.json({ project: serializeProject(project), invoice: serializeInvoice(invoice, totals) }, 200);
  });
