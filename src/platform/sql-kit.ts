import { getTableColumns, getTableName, is, SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type { Db } from "./db";

/*
 * Building blocks for doing a request's work in ONE statement: on the edge every statement is a
 * database round trip, and a single statement is atomic without BEGIN/COMMIT.
 */

type InsertValues<T extends PgTable> = { [K in keyof T["$inferInsert"]]?: T["$inferInsert"][K] | SQL };

/**
 * `insert into <table> (<given columns>) select <values> <from> returning *` as a CTE named `alias`:
 * a conditional insert (no row when `from` yields none) whose values may read other CTEs, which
 * drizzle's `insert().values()` cannot express. Values are typed by their columns (params are cast).
 */
export function insertFrom<TAlias extends string, T extends PgTable>(db: Db, alias: TAlias, table: T, values: InsertValues<T>, from: SQL) {
  const columns: Record<string, PgColumn> = getTableColumns(table);
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const names = sql.join(
    entries.map(([key]) => sql.identifier(columns[key].name)),
    sql`, `,
  );
  const exprs = sql.join(
    entries.map(([key, value]) => (is(value, SQL) ? value : sql`${sql.param(value, columns[key])}::${sql.raw(columns[key].getSQLType())}`)),
    sql`, `,
  );
  return db.$with(alias, getTableColumns(table)).as(sql`insert into ${table} (${names}) select ${exprs} ${from} returning *`);
}

/**
 * Column types the driver hands to drizzle as text (numerics stay exact strings, timestamps are parsed
 * by drizzle): as JSON values they would turn into floats or change format, so they travel as text.
 */
const AS_TEXT = /^(numeric|decimal|bigint|timestamp|date|time|interval)/;

/**
 * The rows of `query` — a select of exactly `fields`, in their order — as one json column, so several
 * result sets come back from one statement (one database round trip). Each value is decoded by its
 * column, so the rows equal what `query` itself returns. Rows keep the query's ORDER BY: nothing at
 * the aggregating level (no join, no grouping) can reorder them.
 */
export function jsonRows<F extends Record<string, PgColumn>>(fields: F, query: SQLWrapper): SQL<SelectResultFields<F>[]> {
  const columns = Object.entries(fields);
  const names = columns.map((_, i) => sql.raw(`c${i}`));
  const values = columns.map(([, column], i) => (AS_TEXT.test(column.getSQLType()) ? sql`r.${names[i]}::text` : sql`r.${names[i]}`));
  return sql`coalesce((select json_agg(json_build_array(${sql.join(values, sql`, `)})) from ${query} as r(${sql.join(names, sql`, `)})), '[]'::json)`.mapWith(
    (rows: unknown[][]) =>
      rows.map((row) =>
        Object.fromEntries(columns.map(([key, column], i) => [key, row[i] === null ? null : column.mapFromDriverValue(row[i])])),
      ) as SelectResultFields<F>[],
  );
}

/**
 * The rows of `table` matching `where`, in `orderBy` order, as one JSON array column of a larger query,
 * decoded to the same row objects `db.select().from(table)` returns: a record with its child lists in
 * one query (no query per list, no parallel queries opening extra connections).
 */
export function tableRows<T extends PgTable>(table: T, where: SQL | undefined, orderBy: SQL): SQL<T["$inferSelect"][]> {
  const fields = getTableColumns(table) as Record<string, PgColumn>;
  const query = sql`(select ${sql.join(Object.values(fields), sql`, `)} from ${table} where ${where ?? sql`true`} order by ${orderBy})`;
  return jsonRows(fields, query) as unknown as SQL<T["$inferSelect"][]>;
}

/** The rows of a raw statement's result (`db.execute`): both Neon drivers answer `{ rows }`, bigint columns as text. */
export const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * A whole row of `table` as one json column of a larger query, read from `alias` (a CTE or a joined
 * table's name) and decoded to the object `db.select().from(table)` returns; null when the row is absent
 * (a left join that found nothing). Numerics and timestamps travel as text, as in `jsonRows`.
 */
export function rowOf<T extends PgTable>(table: T, alias: string): SQL<T["$inferSelect"] | null> {
  const columns = Object.entries(getTableColumns(table) as Record<string, PgColumn>);
  const ref = (column: PgColumn) => sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;
  const values = columns.map(([, column]) => (AS_TEXT.test(column.getSQLType()) ? sql`${ref(column)}::text` : ref(column)));
  const id = columns.find(([, column]) => column.primary)?.[1] ?? columns[0][1];
  return sql`case when ${ref(id)} is null then null else json_build_array(${sql.join(values, sql`, `)}) end`.mapWith(
    (row: unknown[] | null) =>
      row === null
        ? null
        : Object.fromEntries(columns.map(([key, column], i) => [key, row[i] === null ? null : column.mapFromDriverValue(row[i])])),
  ) as SQL<T["$inferSelect"] | null>;
}

/** The next value of a table's identity `id` (for rows whose ids a statement assigns before it inserts them). */
export const nextId = (table: PgTable) => sql`nextval(pg_get_serial_sequence(${getTableName(table)}, 'id'))::int`;

/** A JSON parameter, as jsonb. */
export const jsonParam = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/**
 * The cron pass's retention: deletes the rows of `table` (by its `id`) where `where` holds, in the order
 * of `orderBy` (what an index serves), at most `limit` per statement and `rounds` statements per pass, so
 * no statement deletes more than `limit` rows and a backlog goes in later passes. Answers how many went.
 */
export async function deleteInBatches(
  db: Db,
  opts: { table: PgTable; where: SQL; orderBy: SQL; limit?: number; rounds?: number },
): Promise<number> {
  const { table, where, orderBy, limit = 5000, rounds = 10 } = opts;
  let total = 0;
  for (let round = 0; round < rounds; round++) {
    const gone = rowsOf<{ id: unknown }>(
      await db.execute(sql`
        delete from ${table} where id in (select id from ${table} where ${where} order by ${orderBy} limit ${limit})
        returning id`),
    ).length;
    total += gone;
    if (gone < limit) break;
  }
  return total;
}
