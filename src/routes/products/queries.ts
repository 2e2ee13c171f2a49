import { and, asc, desc, eq, getTableColumns, ilike, isNull, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { catalogItems, companies, invoiceItems, invoices, projects, supplierIntegrations } from "../../db/schema";
import { likeContains } from "../../http/openapi";
import type { Db } from "../../platform/db";
import { jsonRows } from "../../platform/sql-kit";
import { integrationRows, integrationStates, type Provider } from "../../suppliers/integrations";

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

/** The live order (project) of a live invoice of the company, as a LATERAL subquery for one line. */
const liveOrderOf = (db: Db, companyId: number, invoiceId: AnyPgColumn | SQL) =>
  db
    .select({ orderId: sql<number>`${projects.id}`.as("order_id") })
    .from(invoices)
    .innerJoin(projects, and(eq(projects.id, invoices.projectId), eq(projects.companyId, companyId), isNull(projects.deletedAt)))
    .where(and(eq(invoices.id, invoiceId), eq(invoices.companyId, companyId), isNull(invoices.deletedAt)))
    .limit(1)
    .as("live_order");

/**
 * Invoice items of the company matching `condition` that are live and whose invoice and order
 * (project) are live too; the tenant check is on every joined row. The invoice and order are looked up
 * per line (a LATERAL subquery with LIMIT 1, which PostgreSQL cannot turn into a join driven from the
 * company's invoices): lines are found first, by their own indexes, and only those are checked.
 */
function liveInvoiceLines(db: Db, companyId: number, condition: SQL | undefined) {
  const order = liveOrderOf(db, companyId, invoiceItems.invoiceId);
  return db
    .select({ ...getTableColumns(invoiceItems), orderId: order.orderId })
    .from(invoiceItems)
    .innerJoinLateral(order, sql`true`)
    .where(and(eq(invoiceItems.companyId, companyId), isNull(invoiceItems.deletedAt), condition));
}

/** Matching lines taken newest first before any is checked live; enough that 25 live ones are almost always among them. */
const LINE_CANDIDATES = 1000;

/**
 * Lines whose title or description contains q (trigram indexes), most recent first, in two steps of one
 * statement. First the newest LINE_CANDIDATES matches (index order for a common term, the trigram matches
 * for a rare one), checked live in that order until MAX_RESULTS pass: a handful of checks instead of one
 * per match. Only when fewer pass (few matches, or most candidates on deleted orders) does the full query
 * run; either way the answer is the newest live matches.
 */
export function searchInvoiceLines(db: Db, companyId: number, q: string) {
  const pattern = likeContains(q);
  const matches = or(ilike(invoiceItems.title, pattern), ilike(invoiceItems.description, pattern));
  const newest = [desc(invoiceItems.createdAt), desc(invoiceItems.id)];
  const candidates = db
    .select()
    .from(invoiceItems)
    .where(and(eq(invoiceItems.companyId, companyId), isNull(invoiceItems.deletedAt), matches))
    .orderBy(...newest)
    .limit(LINE_CANDIDATES);
  const firstLive = sql`select candidate.*, live_order.order_id from (${candidates}) candidate
    cross join lateral ${liveOrderOf(db, companyId, sql`candidate.invoice_id`)}
    order by candidate.created_at desc, candidate.id desc limit ${MAX_RESULTS}`;
  const all = liveInvoiceLines(db, companyId, matches)
    .orderBy(...newest)
    .limit(MAX_RESULTS);
  return sql`(with first_live as materialized (${firstLive})
    select * from first_live where (select count(*) from first_live) >= ${MAX_RESULTS}
    union all
    select * from (${all}) all_lines where (select count(*) from first_live) < ${MAX_RESULTS}
    order by created_at desc, id desc)`;
}

export async function findLiveInvoiceLine(db: Db, companyId: number, id: number) {
  const [row] = await liveInvoiceLines(db, companyId, eq(invoiceItems.id, id)).limit(1);
  return row;
}

const invoiceLineFields = { ...getTableColumns(invoiceItems), orderId: projects.id };

export interface SearchStorageParts {
  local: boolean;
  lines: boolean;
  /** Providers whose integration the search needs. */
  providers: Provider[];
}

/**
 * Everything a search reads from the database as ONE statement, each part only when asked for:
 * each extra concurrent query would open another connection of the request's pool (two round trips),
 * while this costs one round trip on the connection authentication already opened.
 * No part asked for: no statement.
 */
export async function searchStorage(db: Db, companyId: number, q: string, parts: SearchStorageParts) {
  const none = sql<null>`null`;
  const [row] =
    parts.local || parts.lines || parts.providers.length
      ? await db
          .select({
            local: parts.local ? jsonRows(getTableColumns(catalogItems), searchCatalog(db, companyId, q)) : none,
            lines: parts.lines ? jsonRows(invoiceLineFields, searchInvoiceLines(db, companyId, q)) : none,
            integrations: parts.providers.length
              ? jsonRows(getTableColumns(supplierIntegrations), integrationRows(db, companyId, parts.providers))
              : none,
          })
          .from(companies)
          .where(eq(companies.id, companyId))
      : [];
  return {
    local: row?.local ?? [],
    lines: row?.lines ?? [],
    integrations: integrationStates(parts.providers, row?.integrations ?? []),
  };
}
