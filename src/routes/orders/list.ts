import { z } from "@hono/zod-openapi";
import { and, count, desc, eq, gte, lt, sql } from "drizzle-orm";
import { clients, invoices, orderStatuses, projects, taxes } from "../../db/schema";
import { invoiceTotals } from "../../domain/totals";
import { createAuthRoute, digitsInt, MAX_INT_ID, PaginationSchema, paginationQuery, type Router } from "../../http/openapi";
import { pageTotal } from "../../http/pagination";
import { isoDate } from "../../platform/dates";
import { moneyString } from "../../platform/money";
import { defaultInvoiceOf, invoiceAmountsColumns, liveProjects } from "./queries";
import { ProjectSchema } from "./schema";
import { invoiceTerms, serializeProject } from "./serialize";

const OrderSummarySchema = ProjectSchema.extend({
  status_name: z.string().nullable(),
  client_name: z.string().openapi({ description: "The client's company name" }),
  invoice_id: z.number().int(),
  total: moneyString("Invoice total, as in GET /orders/{id}"),
  amount_paid: moneyString(),
  balance_due: moneyString(),
}).openapi("OrderSummary");

const idFilter = (name: string, description: string) =>
  digitsInt((n) => n.positive().max(MAX_INT_ID))
    .optional()
    .openapi({ param: { name, in: "query" }, description, example: 3 });
const dateFilter = (name: string, description: string) =>
  isoDate()
    .optional()
    .openapi({ param: { name, in: "query" }, description: `${description} (YYYY-MM-DD, UTC, inclusive)`, example: "2026-11-01" });

const route = createAuthRoute({
  method: "get",
  path: "/orders",
  operationId: "listOrders",
  tags: ["Orders"],
  summary: "List orders",
  description:
    "Live orders of your company, newest first (created_at descending, then id descending). " +
    "`page` defaults to 1; `per_page` defaults to 25, at most 100 (out of range is 400, not clamped). " +
    "`from` / `to` are calendar dates compared with the order's created date in UTC, both inclusive: `to=2026-11-30` includes " +
    "an order created at 2026-11-30T23:59:59.999Z. An invalid date, or `from` after `to`, is 400. " +
    "Each item has the project fields, the status and client names, and the invoice total, amount paid and balance (same rules as GET /orders/{id}).",
  request: {
    query: z
      .object({
        ...paginationQuery,
        client_id: idFilter("client_id", "Only orders of this client"),
        status: idFilter("status", "Only orders with this order-status id"),
        from: dateFilter("from", "Created on or after this date"),
        to: dateFilter("to", "Created on or before this date"),
      })
      .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "from must not be after to", path: ["from"] }),
  },
  responses: {
    200: {
      description: "A page of orders",
      content: { "application/json": { schema: z.object({ data: z.array(OrderSummarySchema), pagination: PaginationSchema }) } },
    },
  },
});

export const registerListOrders = (api: Router) =>
  api.openapi(route, async (c) => {
    const { page, per_page, client_id, status, from, to } = c.req.valid("query");
    const db = c.var.db;
    const where = and(
      liveProjects(c.var.auth.companyId),
      client_id === undefined ? undefined : eq(projects.clientId, client_id),
      status === undefined ? undefined : eq(projects.statusId, status),
      from === undefined ? undefined : gte(projects.createdAt, sql`${from}::date::timestamp at time zone 'UTC'`),
      to === undefined ? undefined : lt(projects.createdAt, sql`(${to}::date + 1)::timestamp at time zone 'UTC'`),
    );
    const newestFirst = [desc(projects.createdAt), desc(projects.id)];
    // The page (and its total) first, then amounts for that page's invoices only, all in one statement.
    const pageIds = db.$with("page").as(
      db
        .select({ id: projects.id, total: sql<number>`count(*) over ()`.mapWith(Number).as("total") })
        .from(projects)
        .where(where)
        .orderBy(...newestFirst)
        .limit(per_page)
        .offset((page - 1) * per_page),
    );
    const rows = await db
      .with(pageIds)
      .select({
        project: projects,
        invoice: invoices,
        statusName: orderStatuses.name,
        clientName: clients.companyName,
        taxRate: taxes.rate,
        ...invoiceAmountsColumns(invoices.id),
        total: pageIds.total,
      })
      .from(pageIds)
      .innerJoin(projects, eq(projects.id, pageIds.id))
      .innerJoin(invoices, defaultInvoiceOf(projects.id))
      .innerJoin(clients, eq(clients.id, projects.clientId))
      .leftJoin(orderStatuses, eq(orderStatuses.id, projects.statusId))
      .leftJoin(taxes, eq(taxes.id, invoices.taxId))
      .orderBy(...newestFirst);
    const total = await pageTotal(rows, page, async () => (await db.select({ n: count() }).from(projects).where(where))[0].n);
    const data = rows.map((r) => {
      const totals = invoiceTotals(
        invoiceTerms(r.invoice, r.taxRate),
        r.lines,
        r.payments.map((p) => p.amount),
      );
      return {
        ...serializeProject(r.project),
        status_name: r.statusName,
        client_name: r.clientName,
        invoice_id: r.invoice.id,
        total: totals.total,
        amount_paid: totals.amount_paid,
        balance_due: totals.balance_due,
      };
    });
    return c.json({ data, pagination: { page, per_page, total } }, 200);
  });
