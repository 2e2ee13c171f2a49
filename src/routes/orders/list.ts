import { z } from "@hono/zod-openapi";
import { and, eq, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import { clients } from "../../db/schema/clients";
import { companies } from "../../db/schema/companies";
import { DECORATION_LOCATIONS, DECORATION_METHODS, decorations } from "../../db/schema/decorations";
import { invoices, ORDER_PAYMENT_STATUSES, orderStatuses, projects, taxes } from "../../db/schema/orders";
import { externalIdText } from "../../domain/external";
import { invalid } from "../../http/errors";
import {
  createAuthRoute,
  digitsInt,
  jsonContent,
  MAX_INT_ID,
  paginationQuery,
  type Router,
  timestamp,
  wireFields,
} from "../../http/openapi";
import { cursorQuery, listPosition, syncPaginationSchema, syncQuery } from "../../http/pagination";
import { isoDate } from "../../platform/dates";
import { syncFilter, updatedSort } from "../../platform/incremental-sync";
import { type KeysetSort, orderBySql, sortKeySql } from "../../platform/keyset";
import { countedTotal } from "../../platform/list-counts";
import { moneyString } from "../../platform/money";
import { invoiceAmountsColumns, liveProjects } from "./queries";
import { projectSchema } from "./schema";
import { orderTotals, serializeProject } from "./serialize";

const orderSummarySchema = () =>
  projectSchema()
    .extend({
      status_name: z.string().nullable(),
      client_name: z.string().openapi({ description: "The client's company name" }),
      invoice_id: z.number().int(),
      total: moneyString("Invoice total, as in GET /orders/{id}"),
      amount_paid: moneyString(),
      balance_due: moneyString(),
      deleted_at: timestamp().nullable().openapi({ description: "Set on tombstones (`include_deleted=true`): when the order was deleted" }),
    })
    .openapi("OrderSummary");

const idFilter = (name: string, description: string) =>
  digitsInt((n) => n.positive().max(MAX_INT_ID))
    .optional()
    .openapi({ param: { name, in: "query" }, description, example: 3 });
const dateFilter = (name: string, description: string) =>
  isoDate()
    .optional()
    .openapi({ param: { name, in: "query" }, description: `${description} (YYYY-MM-DD, UTC, inclusive)`, example: "2026-11-01" });

/** At most this many status ids in one `status` filter. */
const MAX_STATUS_FILTER = 20;
const statusFilter = () =>
  z
    .string()
    .max(MAX_STATUS_FILTER * 11)
    .regex(/^\d{1,10}(,\d{1,10})*$/, "Status ids written in digits, separated by commas (3,5)")
    .transform((text, ctx) => {
      const ids = [...new Set(text.split(",").map(Number))].sort((x, y) => x - y);
      if (ids.length > MAX_STATUS_FILTER) ctx.addIssue({ code: "custom", message: `At most ${MAX_STATUS_FILTER} status ids` });
      else if (ids.some((id) => id < 1 || id > MAX_INT_ID)) ctx.addIssue({ code: "custom", message: `Each id from 1 to ${MAX_INT_ID}` });
      else return ids;
      return z.NEVER;
    })
    .optional()
    .openapi({
      param: { name: "status", in: "query" },
      description: `Only orders with one of these order-status ids: one id, or up to ${MAX_STATUS_FILTER} separated by commas (\`3,5\`)`,
      example: "3,5",
    });

/** A list of values out of `values`, comma-separated (`screen_print,embroidery`): each once, sorted. */
const valuesFilter = (name: string, values: readonly string[], description: string) =>
  z
    .string()
    .max(values.join(",").length)
    // regex-lint: alternatives of letters and _ only, one per comma-separated part: linear
    .regex(new RegExp(`^(${values.join("|")})(,(${values.join("|")}))*$`), `One or more of ${values.join(", ")}, separated by commas`)
    .transform((text) => [...new Set(text.split(","))].sort())
    .optional()
    .openapi({
      param: { name, in: "query" },
      description: `${description}: one of ${values.map((v) => `\`${v}\``).join(", ")}, or several separated by commas`,
      example: values.slice(0, 2).join(","),
    });

/** Orders with a live decoration (on a live item) of one of these methods and (both sent: the same decoration) locations. */
const decorationFilter = (companyId: number, methods: string[] | undefined, locations: string[] | undefined) =>
  methods || locations
    ? sql`exists (select 1 from ${decorations} where ${and(
        eq(decorations.companyId, companyId),
        eq(decorations.projectId, projects.id),
        sql`${decorations.deletedAt} is null`,
        methods && inArray(decorations.method, methods),
        locations && inArray(decorations.location, locations),
      )})`
    : undefined;

/** The list's orders: `-created_at` (newest first, the default) … `-deadline`; a `-` means descending. */
export const ORDER_SORTS = ["-created_at", "created_at", "deadline", "-deadline", "-updated_at"] as const;
type OrderSort = (typeof ORDER_SORTS)[number];

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
    "(`deleted_at` set): see the API conventions. `external_id` finds the order with that external id. `decoration_method` and " +
    "`decoration_location` find orders with a live decoration of those methods or locations on a live item (both sent: one decoration " +
    "matching both).",
  request: {
    query: z
      .object({
        ...paginationQuery(),
        ...cursorQuery(),
        ...syncQuery(),
        client_id: idFilter("client_id", "Only orders of this client"),
        status: statusFilter(),
        payment_status: z
          .enum(ORDER_PAYMENT_STATUSES)
          .optional()
          .openapi({
            param: { name: "payment_status", in: "query" },
            description:
              "`unpaid`: nothing paid and a total above 0; `partial`: something paid, less than the total; " +
              "`paid`: the payments cover the total (an order with a total of 0 is paid)",
          }),
        decoration_method: valuesFilter(
          "decoration_method",
          DECORATION_METHODS,
          "Only orders with a line item decorated by this method (with `decoration_location`: by one decoration matching both)",
        ),
        decoration_location: valuesFilter(
          "decoration_location",
          DECORATION_LOCATIONS,
          "Only orders with a line item decorated at this location",
        ),
        from: dateFilter("from", "Created on or after this date"),
        to: dateFilter("to", "Created on or before this date"),
        deadline_from: isoDate()
          .optional()
          .openapi({
            param: { name: "deadline_from", in: "query" },
            description: "Deadline on or after this date (YYYY-MM-DD, inclusive)",
          }),
        deadline_to: isoDate()
          .optional()
          .openapi({ param: { name: "deadline_to", in: "query" }, description: "Deadline on or before this date (YYYY-MM-DD, inclusive)" }),
        external_id: externalIdText()
          .optional()
          .openapi({
            param: { name: "external_id", in: "query" },
            description: "Only the order with this external id (exact match)",
            example: "shopify-1042",
          }),
        sort: z
          .enum(ORDER_SORTS)
          .optional()
          .openapi({
            param: { name: "sort", in: "query" },
            description:
              "`-created_at` (default: newest first), `created_at`, `deadline`, `-deadline` (orders without a deadline last either way) or " +
              "`-updated_at`; ties by id in the same direction. Not with `updated_since`, whose order is `updated_at` ascending",
          }),
      })
      .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "from must not be after to", path: ["from"] })
      .refine((q) => !q.deadline_from || !q.deadline_to || q.deadline_from <= q.deadline_to, {
        message: "deadline_from must not be after deadline_to",
        path: ["deadline_from"],
      }),
  },
  responses: {
    200: {
      description: "A page of orders",
      content: jsonContent(() => z.object({ data: z.array(orderSummarySchema()), pagination: syncPaginationSchema() })),
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
/** Each `sort`, with the id as the tie-break in the same direction; each has an index (src/db/schema/orders.ts). */
export const ORDER_LIST_SORTS: Record<OrderSort, KeysetSort> = {
  "-created_at": ORDERS_SORT,
  created_at: { ...ORDERS_SORT, name: "created_asc", direction: "asc" },
  "-updated_at": {
    name: "updated_desc",
    direction: "desc",
    columns: [
      { column: projects.updatedAt, kind: "timestamp" },
      { column: projects.id, kind: "int" },
    ],
  },
  deadline: {
    name: "deadline_asc",
    direction: "asc",
    columns: [
      { column: projects.deadline, kind: "date", nullable: true },
      { column: projects.id, kind: "int" },
    ],
  },
  "-deadline": {
    name: "deadline_desc",
    direction: "desc",
    columns: [
      { column: projects.deadline, kind: "date", nullable: true },
      { column: projects.id, kind: "int" },
    ],
  },
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

/**
 * The total from the counters (list_counts), when the request's filters are ones they count: none, the
 * status (the ids' counts add up) or the payment status alone; with tombstones or in a sync, none of
 * those (the counter of every row, tombstones included, counts no status). Undefined otherwise.
 */
function countedOrders(
  companyId: number,
  q: {
    client_id?: number;
    status?: number[];
    payment_status?: string;
    from?: string;
    to?: string;
    deadline_from?: string;
    deadline_to?: string;
    external_id?: string;
    decoration_method?: string[];
    decoration_location?: string[];
  },
  sync: ReturnType<typeof syncFilter>,
  base: SQL | undefined,
) {
  const others = [q.client_id, q.from, q.to, q.deadline_from, q.deadline_to, q.external_id, q.decoration_method, q.decoration_location];
  if (others.some((v) => v !== undefined) || (q.status && q.payment_status)) return undefined;
  if (sync.sync || sync.includeDeleted) {
    if (q.status || q.payment_status) return undefined;
    const counter = countedTotal(companyId, sync.includeDeleted ? "orders/include_deleted=true" : "orders");
    return sync.sync ? sync.countedTotal(projects, base, counter) : counter;
  }
  if (q.status)
    return countedTotal(
      companyId,
      q.status.map((id) => `orders/status_id=${id}`),
    );
  return countedTotal(companyId, q.payment_status ? `orders/payment_status=${q.payment_status}` : "orders");
}

export const registerListOrders = (api: Router) =>
  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { client_id, status, payment_status, from, to, deadline_from, deadline_to } = query;
    const { companyId } = c.get("auth");
    const db = c.get("db");
    if (query.updated_since !== undefined && query.sort !== undefined) {
      throw invalid("Invalid request query", [{ field: "sort", message: "Not with updated_since: a sync is ordered by updated_at" }]);
    }
    const sort = query.updated_since === undefined ? ORDER_LIST_SORTS[query.sort ?? "-created_at"] : ORDERS_SYNC_SORT;
    const includeDeleted = query.include_deleted === "true";
    // The cursor is bound to these (and to the sort); a filter not sent is left out, so cursors of the
    // list before the newer filters stay valid.
    const filters = {
      client_id: client_id ?? null,
      status: status === undefined ? null : status.length === 1 ? status[0] : status,
      from: from ?? null,
      to: to ?? null,
      updated_since: query.updated_since ?? null,
      include_deleted: includeDeleted,
      ...(payment_status === undefined ? {} : { payment_status }),
      ...(deadline_from === undefined ? {} : { deadline_from }),
      ...(deadline_to === undefined ? {} : { deadline_to }),
      ...(query.external_id === undefined ? {} : { external_id: query.external_id }),
      ...(query.decoration_method === undefined ? {} : { decoration_method: query.decoration_method }),
      ...(query.decoration_location === undefined ? {} : { decoration_location: query.decoration_location }),
    };
    const pos = listPosition(query, c.req.query("page") !== undefined, sort, { companyId, filters });
    const sync = syncFilter(query, projects.updatedAt, pos.carried);
    const base = includeDeleted ? eq(projects.companyId, companyId) : liveProjects(companyId);
    // The deadline range on the expression the deadline index holds (nulls as 'infinity', which no range reaches).
    const deadline = sql`coalesce(${projects.deadline}, 'infinity'::date)`;
    const where = and(
      base,
      sync.where,
      client_id === undefined ? undefined : eq(projects.clientId, client_id),
      payment_status === undefined ? undefined : eq(projects.paymentStatus, payment_status),
      from === undefined ? undefined : gte(projects.createdAt, sql`${from}::date::timestamp at time zone 'UTC'`),
      to === undefined ? undefined : lt(projects.createdAt, sql`(${to}::date + 1)::timestamp at time zone 'UTC'`),
      deadline_from === undefined ? undefined : and(gte(deadline, sql`${deadline_from}::date`), lt(deadline, sql`'infinity'::date`)),
      deadline_to === undefined ? undefined : lte(deadline, sql`${deadline_to}::date`),
      query.external_id === undefined ? undefined : eq(projects.externalId, query.external_id),
      decorationFilter(companyId, query.decoration_method, query.decoration_location),
    );
    const split = status === undefined ? undefined : { column: projects.statusId, values: status };
    // ONE statement: the page's ids (an index walk in list order, one per status id when there are several;
    // the extra row tells whether a next page exists), then amounts for that page's invoices only, and the
    // exact total: a sync pass's later pages carry the total of its first; the counters when unfiltered or
    // filtered by status or payment status alone (a sync without other filters starts from them too),
    // otherwise a count over the filter's index.
    const pageIds = pos.pageIds(db, projects, projects.id, where, split);
    const total =
      pos.carriedTotal ??
      countedOrders(companyId, query, sync, base) ??
      sql<number>`(select count(*) from ${projects} where ${and(where, status && inArray(projects.statusId, status))})`.mapWith(Number);
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
    const page = pos.finish(
      found,
      (r) => r.sortKey,
      rows[0]?.total ?? 0,
      (r) => {
        const totals = orderTotals(r);
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
      },
      rows[0]?.nextSince,
    );
    return c.json(page, 200);
  });
