import { and, eq, sql } from "drizzle-orm";
import { syncApplies } from "../../accounting/payload";
import { applyIdempotentChange } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { clients, invoices, projects } from "../../db/schema";
import { liveClients } from "../../domain/client";
import { invalid } from "../../http/errors";
import { createAuthRoute, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { orderEvents } from "./events";
import { companySyncSql, unknownReference } from "./queries";
import { OrderCreateSchema, OrderEnvelopeSchema } from "./schema";
import { orderEnvelope } from "./serialize";

const route = createAuthRoute({
  method: "post",
  path: "/orders",
  operationId: "createOrder",
  idempotent: true,
  tags: ["Orders"],
  summary: "Create an order (project with its default invoice)",
  description:
    "Creates the project and its default invoice atomically (one statement). `client_id` must be a live client of your company; " +
    'a missing, soft-deleted or other company\'s client is the same 400 `invalid_request` with `details: [{ field: "client_id" }]`. ' +
    "The invoice starts with the client's tax exemption (flag and reason), no tax row, no discount and no items. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting), an accounting `create` is queued with it (all or nothing).",
  request: { body: { required: true, content: { "application/json": { schema: OrderCreateSchema } } } },
  responses: {
    200: { description: "The created project and invoice (with totals)", content: { "application/json": { schema: OrderEnvelopeSchema } } },
  },
});

export const registerCreateOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const body = c.req.valid("json");
    // One statement (atomic, one round trip): client check, project, invoice, the optional outbox row and the webhook event.
    return applyIdempotentChange(c, async (change) => {
      const { db, companyId } = change;
      const client = db.$with("client").as(
        db
          .select({ id: clients.id, taxExempt: clients.taxExempt, taxExemptReason: clients.taxExemptReason })
          .from(clients)
          .where(and(liveClients(companyId), eq(clients.id, body.client_id))),
      );
      const project = insertFrom(
        db,
        "project",
        projects,
        { companyId, clientId: sql`${client.id}`, title: body.title, description: body.description ?? null },
        sql`from ${client}`,
      );
      const invoice = insertFrom(
        db,
        "invoice",
        invoices,
        {
          companyId,
          projectId: sql`${project.id}`,
          clientId: sql`${client.id}`,
          taxExempt: sql`${client.taxExempt}`,
          taxExemptReason: sql`${client.taxExemptReason}`,
        },
        sql`from ${project}, ${client}`,
      );
      const sync = syncApplies(body.quickbooks_enabled, companySyncSql(companyId));
      const [row] = await change.write(
        {
          with: [client, project, invoice],
          accounting:
            sync === false
              ? []
              : [
                  {
                    projectId: project.id,
                    invoiceId: invoice.id,
                    operation: "create",
                    payload: {},
                    from: sql`from ${project}, ${invoice} where ${sync}`,
                  },
                ],
          events: [eventOf(orderEvents, "order.created", { id: project.id, from: project })],
        },
        (q) =>
          q.select({ project: project._.selectedFields, invoice: invoice._.selectedFields }).from(project).innerJoin(invoice, sql`true`),
      );
      // No row: the client is not a live client of this company, and nothing was written.
      if (!row) throw invalid("Invalid request body", [unknownReference("client_id", "client")]);
      // A new invoice has no tax, items or payments yet.
      const order = orderEnvelope({ project: row.project, invoice: row.invoice, taxRate: null, lines: [], payments: [] });
      change.objects(() => JSON.stringify(order));
      return { status: 200, body: order };
    });
  });
