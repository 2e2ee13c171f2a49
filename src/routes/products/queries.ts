import { and, asc, desc, eq, getTableColumns, ilike, isNull, or, sql } from "drizzle-orm";
import { catalogItems, invoiceItems, invoices, projects } from "../../db/schema";
import type { Db } from "../../lib/db";
import { likeContains } from "../../lib/openapi";

/** Most local matches / invoice lines returned per search. */
export const MAX_RESULTS = 25;
/** Size of the recent local sample returned for a blank q. */
export const SAMPLE_SIZE = 10;

const liveCatalog = (companyId: number) => and(eq(catalogItems.companyId, companyId), isNull(catalogItems.deletedAt));

/** Title substring match (trigram index); titles starting with q first, then by title. */
export function searchCatalog(db: Db, companyId: number, q: string) {
  const startsWith = likeContains(q).slice(1); // "%q%" → "q%"
  return db
    .select()
    .from(catalogItems)
    .where(and(liveCatalog(companyId), ilike(catalogItems.title, likeContains(q))))
    .orderBy(sql`${catalogItems.title} ilike ${startsWith} desc`, asc(catalogItems.title), asc(catalogItems.id))
    .limit(MAX_RESULTS);
}

/** The most recently added live catalog items. */
export function recentCatalog(db: Db, companyId: number) {
  return db
    .select()
    .from(catalogItems)
    .where(liveCatalog(companyId))
    .orderBy(desc(catalogItems.createdAt), desc(catalogItems.id))
    .limit(SAMPLE_SIZE);
}

/**
 * Invoice items of the company that are live and whose invoice and order (project) are live too;
 * the tenant check is on every joined row.
 */
function liveInvoiceLines(db: Db, companyId: number) {
  return db
    .select({ ...getTableColumns(invoiceItems), orderId: projects.id })
    .from(invoiceItems)
    .innerJoin(invoices, and(eq(invoices.id, invoiceItems.invoiceId), eq(invoices.companyId, companyId), isNull(invoices.deletedAt)))
    .innerJoin(projects, and(eq(projects.id, invoices.projectId), eq(projects.companyId, companyId), isNull(projects.deletedAt)))
    .$dynamic();
}

/** Lines whose title or description contains q (trigram indexes), most recent first. */
export function searchInvoiceLines(db: Db, companyId: number, q: string) {
  const pattern = likeContains(q);
  return liveInvoiceLines(db, companyId)
    .where(
      and(
        eq(invoiceItems.companyId, companyId),
        isNull(invoiceItems.deletedAt),
        or(ilike(invoiceItems.title, pattern), ilike(invoiceItems.description, pattern)),
      ),
    )
    .orderBy(desc(invoiceItems.createdAt), desc(invoiceItems.id))
    .limit(MAX_RESULTS);
}

export async function findLiveInvoiceLine(db: Db, companyId: number, id: number) {
  const [row] = await liveInvoiceLines(db, companyId)
    .where(and(eq(invoiceItems.id, id), eq(invoiceItems.companyId, companyId), isNull(invoiceItems.deletedAt)))
    .limit(1);
  return row;
}
