import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { SelectResultFields } from "drizzle-orm/query-builders/select.types";

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
      rows.map((row) => Object.fromEntries(columns.map(([key, column], i) => [key, row[i] === null ? null : column.mapFromDriverValue(row[i])]))) as SelectResultFields<F>[],
  );
}
