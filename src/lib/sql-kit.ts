import { getTableColumns, is, sql, SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { AnyDb } from "./db";

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
export function insertFrom<TAlias extends string, T extends PgTable>(db: AnyDb, alias: TAlias, table: T, values: InsertValues<T>, from: SQL) {
  const columns: Record<string, PgColumn> = getTableColumns(table);
  const entries = Object.entries(values).filter(([, value]) => value !== undefined);
  const names = sql.join(entries.map(([key]) => sql.identifier(columns[key].name)), sql`, `);
  const exprs = sql.join(
    entries.map(([key, value]) => (is(value, SQL) ? value : sql`${sql.param(value, columns[key])}::${sql.raw(columns[key].getSQLType())}`)),
    sql`, `,
  );
  return db.$with(alias, getTableColumns(table)).as(sql`insert into ${table} (${names}) select ${exprs} ${from} returning *`);
}

/**
 * A column as a JSON value the column decodes exactly as it decodes the driver's text: numerics, dates and
 * timestamps travel as text (a JSON number would be a float; to_json would change the timestamp format).
 */
const jsonValue = (column: PgColumn) => (column.dataType === "string" || column.dataType === "date" ? sql`${column}::text` : sql`${column}`);

/**
 * The rows of `table` matching `where`, in `orderBy` order, as one JSON array column of a larger query,
 * decoded to the same row objects `db.select().from(table)` returns. Lets one query return a record with
 * its child lists (no query per list, no parallel queries opening extra connections).
 */
export function jsonRows<T extends PgTable>(table: T, where: SQL | undefined, orderBy: SQL): SQL<T["$inferSelect"][]> {
  const columns = Object.entries(getTableColumns(table) as Record<string, PgColumn>);
  const object = sql.join(
    columns.map(([key, column]) => sql`${sql.raw(`'${key}'`)}, ${jsonValue(column)}`),
    sql`, `,
  );
  const decode = (row: Record<string, unknown>) =>
    Object.fromEntries(columns.map(([key, column]) => [key, row[key] === null ? null : column.mapFromDriverValue(row[key])]));
  return sql`coalesce((select json_agg(json_build_object(${object}) order by ${orderBy}) from ${table} where ${where ?? sql`true`}), '[]'::json)`.mapWith(
    (rows: Record<string, unknown>[]) => rows.map(decode) as T["$inferSelect"][],
  );
}
