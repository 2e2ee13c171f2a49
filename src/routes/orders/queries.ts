import { and, eq, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { clients } from "../../db/schema/clients";
import { decorations } from "../../db/schema/decorations";
import { artworks, invoiceItems, invoices, orderStatuses, payments, projects, taxes } from "../../db/schema/orders";
import { etagSql } from "../../http/etag";
import type { Db } from "../../platform/db";
import { jsonRows, tableRows } from "../../platform/sql-kit";
import { artworkApprovalsSql } from "./approvals/status";
import { orderTotals } from "./serialize";

/** Live (not soft-deleted) projects of the company. */
export const liveProjects = (companyId: number) => and(eq(projects.companyId, companyId), isNull(projects.deletedAt));
/** The project's default invoice (exactly one per project: a partial unique index). */
export const defaultInvoiceOf = (projectId: AnyPgColumn | number) =>
  and(eq(invoices.projectId, projectId), eq(invoices.isDefault, true), isNull(invoices.deletedAt));

/**
 * What `invoiceTotals` needs besides the invoice row, as correlated subqueries so a whole page of orders
 * gets them in the same query (no query per row). `jsonRows` keeps the numerics exact.
 */
export const invoiceAmountsColumns = (invoiceId: AnyPgColumn | number) => ({
  lines: jsonRows(
    { quantity: invoiceItems.quantity, unit_price: invoiceItems.unitPrice },
    sql`(select ${invoiceItems.quantity}, ${invoiceItems.unitPrice} from ${invoiceItems} where ${invoiceItems.invoiceId} = ${invoiceId} and ${invoiceItems.deletedAt} is null)`,
  ),
  payments: jsonRows(
    { amount: payments.amount },
    sql`(select ${payments.amount} from ${payments} where ${payments.invoiceId} = ${invoiceId} and ${payments.deletedAt} is null)`,
  ),
});

/**
 * An order's strong ETag: from its project, its default invoice (every contents write and every PATCH bump
 * the project's and the invoice's `updated_at`) and its client (shown in the order). Arguments are the
 * columns (of a table or a CTE) in the statement at hand; the client's `updated_at` is looked up by id.
 */
export const orderEtag = (projectId: unknown, projectUpdatedAt: unknown, invoiceUpdatedAt: unknown, clientId: unknown) =>
  etagSql(projectId, [
    projectUpdatedAt,
    invoiceUpdatedAt,
    sql`(select ${clients.updatedAt} from ${clients} where ${clients.id} = ${clientId})`,
  ]);

export { companySyncSql } from "../../accounting/payload";

/**
 * Everything GET /orders/{id} shows in ONE query (items, their decorations, payments and artworks as JSON lists): one round
 * trip on one connection. Undefined when the order is not the company's live order.
 */
export async function loadOrderDetail(db: Db, companyId: number, id: number) {
  const [row] = await db
    .select({
      project: projects,
      invoice: invoices,
      client: clients,
      tax: taxes,
      status: orderStatuses,
      etag: orderEtag(projects.id, projects.updatedAt, invoices.updatedAt, projects.clientId),
      items: tableRows(
        invoiceItems,
        and(eq(invoiceItems.invoiceId, invoices.id), isNull(invoiceItems.deletedAt)),
        sql`${invoiceItems.position}, ${invoiceItems.id}`,
      ),
      payments: tableRows(
        payments,
        and(eq(payments.invoiceId, invoices.id), isNull(payments.deletedAt)),
        sql`${payments.paidDate} asc nulls last, ${payments.id}`,
      ),
      artworks: tableRows(
        artworks,
        and(eq(artworks.companyId, companyId), eq(artworks.projectId, projects.id), isNull(artworks.deletedAt)),
        sql`${artworks.id}`,
      ),
      artworkApprovals: artworkApprovalsSql(companyId, projects.id),
      decorations: tableRows(
        decorations,
        and(eq(decorations.companyId, companyId), eq(decorations.projectId, projects.id), isNull(decorations.deletedAt)),
        sql`${decorations.invoiceItemId}, ${decorations.position}, ${decorations.id}`,
      ),
    })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .innerJoin(clients, eq(clients.id, projects.clientId))
    .leftJoin(taxes, eq(taxes.id, invoices.taxId))
    .leftJoin(orderStatuses, eq(orderStatuses.id, projects.statusId))
    .where(and(liveProjects(companyId), eq(projects.id, id)));
  if (!row) return undefined;
  const totals = orderTotals({
    invoice: row.invoice,
    taxRate: row.tax?.rate ?? null,
    lines: row.items.map((i) => ({ quantity: i.quantity, unit_price: i.unitPrice })),
    payments: row.payments,
  });
  return { ...row, totals };
}

/**
 * Error detail for a body field naming a row the caller's company does not have (missing, soft-deleted or
 * another company's: all the same answer). It is a 400, not a 404: the URL exists, one body field is wrong.
 */
export const unknownReference = (field: string, what: string) => ({ field, message: `No such ${what} in your company` });
