import { and, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./db";

/*
 * The SQL of keyset pagination: a list is walked in one sort and a page starts right after the last row
 * of the previous one, so any depth costs what the first page costs. The cursor that carries that last
 * row's key over the wire is src/http/pagination.ts.
 * Keys are strings of digits (ids, timestamps as microseconds since the epoch, so PostgreSQL's
 * microseconds survive the trip, and dates as days since the epoch), or null for a nullable column's null.
 */

/**
 * One column of a sort key: ids (`int` for int4 columns, `bigint` for bigint ones read as JS numbers),
 * timestamps or dates; every column of one sort runs the same direction. A `nullable` column sorts its
 * nulls last in either direction: the sort, the keyset comparison and the index that serves them use
 * `coalesce(column, 'infinity')` ascending or `coalesce(column, '-infinity')` descending (index that
 * expression; a row comparison never meets a null).
 */
export interface KeyColumn {
  column: AnyPgColumn;
  kind: "int" | "bigint" | "timestamp" | "date";
  nullable?: true;
}
export interface KeysetSort {
  /** Part of every cursor: a cursor of one sort is refused by another. */
  name: string;
  direction: "asc" | "desc";
  columns: KeyColumn[];
}

/** A row's sort key: one string of digits per column, null for a nullable column's null. */
export type SortKey = (string | null)[];

const KEY_EXPR = {
  int: (column: AnyPgColumn) => sql`${column}`,
  bigint: (column: AnyPgColumn) => sql`${column}`,
  timestamp: (column: AnyPgColumn) => sql`(extract(epoch from ${column}) * 1000000)::bigint`,
  date: (column: AnyPgColumn) => sql`(${column} - '1970-01-01'::date)`,
};
const KEY_VALUE = {
  int: (value: string) => sql`${Number(value)}::int`,
  bigint: (value: string) => sql`${value}::bigint`,
  timestamp: (value: string) => sql`'epoch'::timestamptz + ${value}::bigint * interval '1 microsecond'`,
  date: (value: string) => sql`'1970-01-01'::date + ${Number(value)}::int`,
};
/** Where a nullable column's nulls sort: after every value in the sort's direction. */
const nullsLast = (sort: KeysetSort, c: KeyColumn) =>
  sql.raw(`'${sort.direction === "asc" ? "infinity" : "-infinity"}'::${c.column.getSQLType()}`);
/** What the sort orders by and compares: the column, or for a nullable one the column with its nulls last. */
const sortExpr = (sort: KeysetSort, c: KeyColumn) => (c.nullable ? sql`coalesce(${c.column}, ${nullsLast(sort, c)})` : sql`${c.column}`);
const keyValue = (sort: KeysetSort, c: KeyColumn, value: string | null) => (value === null ? nullsLast(sort, c) : KEY_VALUE[c.kind](value));

/** Select this as a row's sort key (text[], null for a null): the last row's key becomes the next cursor. */
export const sortKeySql = (sort: KeysetSort) =>
  sql<SortKey>`array[${sql.join(
    sort.columns.map((c) => sql`${KEY_EXPR[c.kind](c.column)}::text`),
    sql`, `,
  )}]`;

/** The sort's expressions, in order (each column, or a nullable one with its nulls last). */
export const sortExprs = (sort: KeysetSort) => sort.columns.map((c) => sortExpr(sort, c));

/** ORDER BY for the sort. */
export const orderBySql = (sort: KeysetSort) => sortExprs(sort).map((e) => (sort.direction === "asc" ? sql`${e} asc` : sql`${e} desc`));

/** Rows strictly after `key` in the sort's order: one row comparison an index on the sort expressions serves. */
export function afterKey(sort: KeysetSort, key: SortKey | undefined): SQL | undefined {
  if (!key) return undefined;
  const cols = sql.join(sortExprs(sort), sql`, `);
  const vals = sql.join(
    sort.columns.map((c, i) => keyValue(sort, c, key[i])),
    sql`, `,
  );
  return sort.direction === "asc" ? sql`(${cols}) > (${vals})` : sql`(${cols}) < (${vals})`;
}

/**
 * A list filtered to several values of one column (`status=3,5`): the page is taken from one index walk
 * per value, merged, so it costs what the values' first pages cost, however many rows each has.
 */
export interface Split {
  column: AnyPgColumn;
  values: readonly number[];
}

/** Where a page lies in the sort: after a key (a condition, undefined on a first page), or skipping rows. */
export interface PageWindow {
  after: SQL | undefined;
  limit: number;
  offset: number;
}

/**
 * A page's ids as the CTE `page`: an index walk in the sort's order over `table`'s rows that match
 * `where`, within `window`.
 */
export function pageIdsCte(
  db: Db,
  sort: KeysetSort,
  window: PageWindow,
  table: PgTable,
  id: AnyPgColumn,
  where: SQL | undefined,
  split?: Split,
) {
  const { after, limit, offset } = window;
  const walk = (fields: Record<string, SQL.Aliased>, cond: SQL | undefined, rows: number, skip: number) =>
    db
      .select({ id, ...fields })
      .from(table)
      .where(and(where, cond, after))
      .orderBy(...orderBySql(sort))
      .limit(rows)
      .offset(skip);
  if (!split || split.values.length === 1) {
    return db.$with("page").as(walk({}, split && sql`${split.column} = ${split.values[0]}`, limit, offset));
  }
  // One walk per value, each in its index's order and no longer than the page needs, then merged by the sort.
  const keyFields = Object.fromEntries(sortExprs(sort).map((e, i) => [`k${i}`, e.as(`k${i}`)]));
  const walks = split.values.map((v) => sql`(${walk(keyFields, sql`${split.column} = ${v}`, offset + limit, 0)})`);
  const keys = sort.columns.map((_, i) => sql.raw(`k${i} ${sort.direction}`));
  return db
    .$with("page", { id })
    .as(
      sql`select id from (${sql.join(walks, sql` union all `)}) walks order by ${sql.join(keys, sql`, `)} limit ${limit} offset ${offset}`,
    );
}
