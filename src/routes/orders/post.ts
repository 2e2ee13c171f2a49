import { and, eq, sql } from "drizzle-orm";
import { accountingChangeCte, notifyOutbox } from "../../accounting/outbox";
import { syncApplies } from "../../accounting/payload";
import { clients, invoices, projects } from "../../db/schema";
import { liveClients } from "../../domain/client";
import { invalid } from "../../http/errors";
import { withIdempotency } from "../../http/idempotency";
import { createAuthRoute, type Router } from "../../http/openapi";
import { insertFrom } from "../../platform/sql-kit";
import { publishWebhookEvent, webhookEventCte } from "../../webhooks/events";
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
    const { companyId } = c.var.auth;
    // One statement (atomic, one round trip): client check, project, invoice, the optional outbox row and the webhook event.
    return withIdempotency(c, async (db) => {
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
      const outbox =
        sync === false
          ? undefined
          : accountingChangeCte(
              db,
              { companyId, projectId: sql`${project.id}`, invoiceId: sql`${invoice.id}`, operation: "create", payload: {} },
              sql`from ${project}, ${invoice} where ${sync}`,
            );
      const event = webhookEventCte(
        db,
        { companyId, type: "order.created", resourceType: "order", resourceId: sql`${project.id}` },
        sql`from ${project}`,
      );
      const [row] = await db
        .with(client, project, invoice, ...(outbox ? [outbox] : []), ...event.ctes)
        .select({
          project: project._.selectedFields,
          webhook: event.written,
          invoice: invoice._.selectedFields,
          outboxId: outbox ? sql<number | null>`(select ${outbox.id} from ${outbox})`.mapWith(Number) : sql<null>`null`,
        })
        .from(project)
        .innerJoin(invoice, sql`true`);
      // No row: the client is not a live client of this company, and nothing was written.
      if (!row) throw invalid("Invalid request body", [unknownReference("client_id", "client")]);
      const outboxId = row.outboxId;
      // A new invoice has no tax, items or payments yet.
      const order = orderEnvelope({ project: row.project, invoice: row.invoice, taxRate: null, lines: [], payments: [] });
      return {
        status: 200,
        body: order,
        afterCommit: () => {
          if (outboxId !== null) notifyOutbox(c.env, [outboxId], c.var.defer);
          publishWebhookEvent(c, row.webhook, () => JSON.stringify(order));
        },
      };
    });
  });
