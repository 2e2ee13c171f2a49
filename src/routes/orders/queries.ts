import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import {
  artworks, clients, companies, invoiceItems, invoices, orderStatuses, payments, projects, taxes,
} from "../../db/schema";
import type { AnyDb } from "../../lib/db";
import { invoiceTerms } from "./schema";
import { invoiceTotals, type LineAmounts } from "./totals";


/** Live (not soft-deleted) projects of the company. */
export const liveProjects = (companyId: number) => and(eq(projects.companyId, companyId), isNull(projects.deletedAt));
/** The project's default invoice (exactly one per project: a partial unique index). */
export const defaultInvoiceOf = (projectId: AnyPgColumn | number) =>
  and(eq(invoices.projectId, projectId), eq(invoices.isDefault, true), isNull(invoices.deletedAt));

/**
 * What `invoiceTotals` needs besides the invoice row, as correlated subqueries so a whole page of orders
 * gets them in the same query (no query per row). Numerics travel as text: JSON numbers would be floats.
 */
export const invoiceAmountsColumns = (invoiceId: AnyPgColumn | number) => ({
  lines: sql<LineAmounts[]>`coalesce((select json_agg(json_build_object('quantity', ${invoiceItems.quantity}::text, 'unit_price', ${invoiceItems.unitPrice}::text)) from ${invoiceItems} where ${invoiceItems.invoiceId} = ${invoiceId} and ${invoiceItems.deletedAt} is null), '[]'::json)`,
  paymentAmounts: sql<string[]>`coalesce((select json_agg(${payments.amount}::text) from ${payments} where ${payments.invoiceId} = ${invoiceId} and ${payments.deletedAt} is null), '[]'::json)`,
});

/** Totals of one invoice row, and its tax row's rate: lines, payments and rate in one query. */
export async function totalsOf(db: AnyDb, invoice: typeof invoices.$inferSelect) {
  const [row] = await db
    .select({ ...invoiceAmountsColumns(invoices.id), taxRate: taxes.rate })
    .from(invoices)
    .leftJoin(taxes, eq(taxes.id, invoices.taxId))
    .where(eq(invoices.id, invoice.id));
  return { totals: invoiceTotals(invoiceTerms(invoice, row.taxRate), row.lines, row.paymentAmounts), taxRate: row.taxRate };
}

/** The company's accounting-sync default. */
export async function companySyncFlag(db: AnyDb, companyId: number) {
  const [row] = await db.select({ flag: companies.accountingSyncEnabled }).from(companies).where(eq(companies.id, companyId));
  return row?.flag ?? false;
}

/** One of the company's order statuses, or undefined (another company's looks the same as none). */
export async function findStatus(db: AnyDb, companyId: number, id: number) {
  const [row] = await db.select().from(orderStatuses).where(and(eq(orderStatuses.companyId, companyId), eq(orderStatuses.id, id))).limit(1);
  return row;
}

/** One of the company's tax rows, or undefined. */
export async function findTax(db: AnyDb, companyId: number, id: number) {
  const [row] = await db.select().from(taxes).where(and(eq(taxes.companyId, companyId), eq(taxes.id, id))).limit(1);
  return row;
}

/**
 * A live order (project + default invoice) of the company, both rows locked for the rest of the
 * transaction, with the company's accounting-sync default. Undefined when missing or another company's.
 */
export async function lockOrder(tx: AnyDb, companyId: number, id: number) {
  const [row] = await tx
    .select({ project: projects, invoice: invoices, companySync: companies.accountingSyncEnabled })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .innerJoin(companies, eq(companies.id, projects.companyId))
    .where(and(liveProjects(companyId), eq(projects.id, id)))
    .for("update", { of: [projects, invoices] });
  return row;
}

/** Everything GET /orders/{id} shows, in four concurrent queries; undefined when the order is not the company's live order. */
export async function loadOrderDetail(db: AnyDb, companyId: number, id: number) {
  const invoiceIds = db
    .select({ id: invoices.id })
    .from(invoices)
    .where(and(eq(invoices.companyId, companyId), defaultInvoiceOf(id)));
  const [[main], items, paid, art] = await Promise.all([
    db
      .select({ project: projects, invoice: invoices, client: clients, tax: taxes, status: orderStatuses })
      .from(projects)
      .innerJoin(invoices, defaultInvoiceOf(projects.id))
      .innerJoin(clients, eq(clients.id, projects.clientId))
      .leftJoin(taxes, eq(taxes.id, invoices.taxId))
      .leftJoin(orderStatuses, eq(orderStatuses.id, projects.statusId))
      .where(and(liveProjects(companyId), eq(projects.id, id))),
    db
      .select()
      .from(invoiceItems)
      .where(and(inArray(invoiceItems.invoiceId, invoiceIds), isNull(invoiceItems.deletedAt)))
      .orderBy(asc(invoiceItems.position), asc(invoiceItems.id)),
    db
      .select()
      .from(payments)
      .where(and(inArray(payments.invoiceId, invoiceIds), isNull(payments.deletedAt)))
      .orderBy(sql`${payments.paidDate} asc nulls last`, asc(payments.id)),
    db
      .select()
      .from(artworks)
      .where(and(eq(artworks.companyId, companyId), eq(artworks.projectId, id), isNull(artworks.deletedAt)))
      .orderBy(asc(artworks.id)),
  ]);
  if (!main) return undefined;
  const totals = invoiceTotals(
    invoiceTerms(main.invoice, main.tax?.rate ?? null),
    items.map((i) => ({ quantity: i.quantity, unit_price: i.unitPrice })),
    paid.map((p) => p.amount),
  );
  return { ...main, items, payments: paid, artworks: art, totals };
}

/**
 * Error detail for a body field naming a row the caller's company does not have (missing, soft-deleted or
 * another company's: all the same answer). It is a 400, not a 404: the URL exists, one body field is wrong.
 */
export const unknownReference = (field: string, what: string) => ({ field, message: `No such ${what} in your company` });
