import { z } from "@hono/zod-openapi";
import { and, eq, gte, lt, sql } from "drizzle-orm";
import { clients, companies, invoices, orderStatuses, projects, taxes } from "../../db/schema";
import { invoiceTotals } from "../../domain/totals";
import { createAuthRoute, digitsInt, MAX_INT_ID, paginationQuery, type Router, timestamp, wireFields } from "../../http/openapi";
import {
  countedTotal,
  cursorQuery,
  type KeysetSort,
  listPosition,
  orderBySql,
  SyncPaginationSchema,
  sortKeySql,
  syncFilter,
  syncQuery,
  updatedSort,
} from "../../http/pagination";
import { isoDate } from "../../platform/dates";
import { moneyString } from "../../platform/money";
import { invoiceAmountsColumns, liveProjects } from "./queries";
import { ProjectSchema } from "./schema";
import { invoiceTerms, serializeProject } from "./serialize";

const OrderSummarySchema = ProjectSchema.extend({
  status_name: z.string().nullable(),
  client_name: z.string().openapi({ description: "The client's company name" }),
  invoice_id: z.number().int(),
  total: moneyString("Invoice total, as in GET /orders/{id}"),
  amount_paid: moneyString(),
  balance_due: moneyString(),
  deleted_at: timestamp().nullable().openapi({ description: "Set on tombstones (`include_deleted=true`): when the order was deleted" }),
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
    "Each item has the project fields, the status and client names, and the invoice total, amount paid and balance (same rules as GET /orders/{id}). " +
    "Every page carries `pagination.next_cursor`: pass it as `cursor` (with the same filters) for the next page, which costs the same at any " +
    "depth and stays stable while orders are added or deleted; `page` also works, but a deep `page` costs time in proportion to its depth. " +
    "`updated_since` turns the list into an incremental sync (ordered by `updated_at`, then `id`; any change to the order, its invoice, " +
    "items, payments or artworks moves the order's `updated_at` on), and `include_deleted=true` adds deleted orders as tombstones " +
    "(`deleted_at` set): see the API conventions.",
  request: {
    query: z
      .object({
        ...paginationQuery,
        ...cursorQuery,
        ...syncQuery,
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
      content: { "application/json": { schema: z.object({ data: z.array(OrderSummarySchema), pagination: SyncPaginationSchema }) } },
    },
  },
});

/** Newest first; the id breaks ties between orders created in the same microsecond. */
export const ORDERS_SORT: KeysetSort = {
  name: "created_desc",
  direction: "desc",
  columns: [
    { column: projects.createdAt, kind: "timestamp" },
    { column: projects.id, kind: "int" },
  ],
};
/** Incremental sync: changes in the order they were made. */
const ORDERS_SYNC_SORT = updatedSort(projects.updatedAt, projects.id);

/**
 * The order's default invoice, live with a live order, and for a tombstone the one deleted with it
 * (DELETE /orders/{id} stamps both with the same instant).
 */
const orderInvoice = and(
  eq(invoices.projectId, projects.id),
  eq(invoices.isDefault, true),
  sql`${invoices.deletedAt} is not distinct from ${projects.deletedAt}`,
);

export const registerListOrders = (api: Router) =>
  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { client_id, status, from, to } = query;
    const { companyId } = c.var.auth;
    const db = c.var.db;
    const sort = query.updated_since === undefined ? ORDERS_SORT : ORDERS_SYNC_SORT;
    const includeDeleted = query.include_deleted === "true";
    const filters = {
      client_id: client_id ?? null,
      status: status ?? null,
      from: from ?? null,
      to: to ?? null,
      updated_since: query.updated_since ?? null,
      include_deleted: includeDeleted,
    };
    const pos = listPosition(query, c.req.query("page") !== undefined, sort, { companyId, filters });
    const sync = syncFilter(query, projects.updatedAt, pos.carried);
    const base = includeDeleted ? eq(projects.companyId, companyId) : liveProjects(companyId);
    const unfiltered = client_id === undefined && from === undefined && to === undefined;
    const where = and(
      base,
      sync.where,
      client_id === undefined ? undefined : eq(projects.clientId, client_id),
      status === undefined ? undefined : eq(projects.statusId, status),
      from === undefined ? undefined : gte(projects.createdAt, sql`${from}::date::timestamp at time zone 'UTC'`),
      to === undefined ? undefined : lt(projects.createdAt, sql`(${to}::date + 1)::timestamp at time zone 'UTC'`),
    );
    // ONE statement: the page's ids (an index walk in list order; the extra row tells whether a next page
    // exists), then amounts for that page's invoices only, and the exact total: a sync pass's later pages
    // carry the total of its first; the counters when unfiltered or filtered by status alone (a sync without
    // other filters starts from them too), otherwise a count over the filter's index.
    const pageIds = pos.pageIds(db, projects, projects.id, where);
    const counter = countedTotal(
      companyId,
      includeDeleted ? "orders/include_deleted=true" : status === undefined ? "orders" : `orders/status_id=${status}`,
    );
    const total =
      pos.carriedTotal ??
      (unfiltered && !sync.sync && !(includeDeleted && status !== undefined)
        ? counter
        : unfiltered && sync.sync && status === undefined
          ? sync.countedTotal(projects, base, counter)
          : sql<number>`(select count(*) from ${projects} where ${where})`.mapWith(Number));
    const rows = await db
      .with(pageIds)
      .select({
        total,
        nextSince: sync.nextSince,
        project: projects,
        invoice: invoices,
        statusName: orderStatuses.name,
        clientName: clients.companyName,
        taxRate: taxes.rate,
        ...invoiceAmountsColumns(invoices.id),
        sortKey: sortKeySql(sort),
      })
      .from(companies)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(projects, eq(projects.id, pageIds.id))
      .leftJoin(invoices, orderInvoice)
      .leftJoin(clients, eq(clients.id, projects.clientId))
      .leftJoin(orderStatuses, eq(orderStatuses.id, projects.statusId))
      .leftJoin(taxes, eq(taxes.id, invoices.taxId))
      .where(eq(companies.id, companyId))
      .orderBy(...orderBySql(sort));
    // A project always has its default invoice and client; the empty page is the one row without them.
    const found = rows.flatMap((r) =>
      r.project && r.invoice && r.clientName !== null ? [{ ...r, project: r.project, invoice: r.invoice }] : [],
    );
    const { data, pagination } = pos.finish(found, (r) => r.sortKey, rows[0]?.total ?? 0, rows[0]?.nextSince);
    return c.json(
      {
        data: data.map((r) => {
          const totals = invoiceTotals(
            invoiceTerms(r.invoice, r.taxRate),
            r.lines,
            r.payments.map((p) => p.amount),
          );
          return {
            ...serializeProject(r.project),
            status_name: r.statusName,
            client_name: r.clientName as string,
            invoice_id: r.invoice.id,
            total: totals.total,
            amount_paid: totals.amount_paid,
            balance_due: totals.balance_due,
            ...wireFields(r.project, ["deletedAt"]),
          };
        }),
        pagination,
      },
      200,
    );
  });
