import { and, desc, eq, getTableColumns, ilike, isNull, or, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { companies } from "../../db/schema/companies";
import { invoiceItems, invoices, projects } from "../../db/schema/orders";
import { catalogItems, supplierIntegrations } from "../../db/schema/products";
import { likeContains } from "../../http/openapi";
import type { Db } from "../../platform/db";
import { jsonRows } from "../../platform/sql-kit";
import { integrationRows, integrationStates, type Provider } from "../../suppliers/integrations";

/** Most local matches / invoice lines returned per search. */
export const MAX_RESULTS = 25;
/** Size of the recent local sample returned for a blank q. */
export const SAMPLE_SIZE = 10;

const liveCatalog = (companyId: number) => and(eq(catalogItems.companyId, companyId), isNull(catalogItems.deletedAt));

/**
 * Most rows a search reads in its list's order before it turns to the index instead: a term common enough
 * to fill its page within them is read from the first rows of the order and the walk stops at the page
 * (about MAX_RESULTS / share of rows: 125 lines for a term in 20 % of lines, 2,500 for one in 1 %); a rarer
 * one is found through its index, which reads every match (the walk's rows are then read in vain). A walked
 * line costs about a sixth of a line read through the trigram index (about 1 µs against 6 µs at a million
 * lines): 10,000 keeps a rare term's vain walk to about 10 ms while a term just too rare for the walk
 * (0.25 %) reads at most 2,500 matches per million lines. No plan depends on PostgreSQL's guess of how
 * common the term is.
 */
export const WALK = { catalog: 10_000, lines: 10_000 };

/** Whether the company has fewer live rows than a walk reads (the walk then saw all of them); in the walk's order, so its index serves. */
const walkSawAll = (table: PgTable, live: SQL | undefined, order: SQL, walk: number) =>
  sql`(select count(*) from (select 1 from ${table} where ${live} order by ${order} limit ${walk}) as probe) < ${walk}`;

/**
 * Title substring match; titles starting with q first, then by title; at most MAX_RESULTS. The starts are
 * a range of `catalog_items_company_title_prefix_idx` (lower(title)), read from the index alone and
 * sorted. The others come from the first WALK.catalog titles in title order (the title index alone)
 * when they hold enough of them, otherwise from the trigram index. Subqueries are read under the table's
 * name, so their columns are the table's.
 */
export function searchCatalog(companyId: number, q: string) {
  const live = liveCatalog(companyId);
  const byTitle = sql`${catalogItems.title}, ${catalogItems.id}`;
  const keys = sql`${catalogItems.id}, ${catalogItems.title}`;
  const starts = sql`lower(${catalogItems.title}) like lower(${likeContains(q).slice(1)})`; // "%q%" → "q%"
  const others = sql`${ilike(catalogItems.title, likeContains(q))} and not ${starts}`;
  const need = sql`${MAX_RESULTS} - (select count(*) from starting)`;
  const walked = sql`select ${keys} from (select ${keys}, ${others} as hit from ${catalogItems} where ${live} order by ${byTitle} limit ${WALK.catalog}) as catalog_items
    where hit order by ${byTitle} limit ${need}`;
  return sql`(with starting as materialized (select ${keys} from ${catalogItems} where ${and(live, starts)} order by ${byTitle} limit ${MAX_RESULTS}),
      walked as materialized (${walked}),
      walk_ok as materialized (select (select count(*) from walked) >= ${need} or ${walkSawAll(catalogItems, live, byTitle, WALK.catalog)} as ok),
      page as (
        select id, title, 0 as k from starting
        union all
        select id, title, 1 from walked where (select ok from walk_ok)
        union all
        select id, title, 1 from (select ${keys} from (select ${keys} from ${catalogItems} where ${and(live, ilike(catalogItems.title, likeContains(q)))} offset 0) as catalog_items
          where ${others} order by ${byTitle} limit ${need}) as indexed
        where not (select ok from walk_ok))
    select ${sql.join(Object.values(getTableColumns(catalogItems)), sql`, `)} from page join ${catalogItems} using (id)
    order by page.k, page.title, page.id limit ${MAX_RESULTS})`;
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

/**
 * Lines whose title or description contains q, newest first, live (their invoice and order too), at most
 * MAX_RESULTS. Taken from a walk of the company's newest lines, which stops as soon as MAX_RESULTS live
 * matches are found, when the newest WALK.lines hold them (a term in more than about 0.25 % of lines),
 * otherwise from the trigram indexes: every match, newest first, checked live in that order until
 * MAX_RESULTS pass. The live check is one LATERAL lookup per line, made only for lines in the answer's
 * running, so a term on many lines costs about MAX_RESULTS checks.
 */
export function searchInvoiceLines(db: Db, companyId: number, q: string) {
  const pattern = likeContains(q);
  const matches = or(ilike(invoiceItems.title, pattern), ilike(invoiceItems.description, pattern));
  const live = and(eq(invoiceItems.companyId, companyId), isNull(invoiceItems.deletedAt));
  const columns = sql.join(Object.values(getTableColumns(invoiceItems)), sql`, `);
  const newest = sql`${invoiceItems.createdAt} desc, ${invoiceItems.id} desc`;
  const firstLive = (lines: SQL) => sql`select invoice_items.*, live_order.order_id from (${lines}) as invoice_items
    cross join lateral ${liveOrderOf(db, companyId, sql`invoice_items.invoice_id`)}
    order by ${newest} limit ${MAX_RESULTS}`;
  const walked = sql`select ${columns} from (select ${columns} from ${invoiceItems} where ${live} order by ${newest} limit ${WALK.lines}) as invoice_items
    where ${matches} order by ${newest}`;
  const indexed = sql`select ${columns} from (select ${columns} from ${invoiceItems} where ${and(live, matches)} offset 0) as invoice_items order by ${newest}`;
  return sql`(with walk_live as materialized (${firstLive(walked)}),
      ok as materialized (select (select count(*) from walk_live) >= ${MAX_RESULTS} or ${walkSawAll(invoiceItems, live, newest, WALK.lines)} as ok)
    select * from walk_live where (select ok from ok)
    union all
    select * from (${firstLive(indexed)}) as index_live where not (select ok from ok)
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
            local: parts.local ? jsonRows(getTableColumns(catalogItems), searchCatalog(companyId, q)) : none,
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
