import { and, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { KeysetSort } from "./keyset";

/*
 * Incremental sync: `updated_since` switches a list to (updated_at, id) ascending with keyset cursors.
 * `updated_at` is set by the database to now(), the writing transaction's START time, so a row can commit
 * with an updated_at older than rows a sync already read. Each page therefore only returns rows changed
 * before a watermark no transaction still running can write behind: the start of the oldest transaction
 * in progress on this database (the API's own role sees all of its sessions), and at most
 * now() - SYNC_LAG_SECONDS for what that view cannot show (sessions of other roles, a transaction in its
 * first instant). The watermark is cut to whole milliseconds, so the wire's timestamps carry it exactly.
 * The query parameters and the answer's `next_updated_since` are src/http/pagination.ts.
 */
export const SYNC_LAG_SECONDS = 2;
export const syncWatermarkSql = sql<string>`(select date_trunc('milliseconds', least(now() - make_interval(secs => ${SYNC_LAG_SECONDS}), (select min(xact_start) from pg_stat_activity where datname = current_database()))))`;

/** What the first page of a sync pass hands on to the pass's later pages: its total and its watermark (ms since the epoch). */
export interface Carried {
  total: number;
  watermark: number;
}

/** The carried total as a statement's total. */
export const carriedTotalSql = (carried: Carried) => sql<number>`${carried.total}::bigint`.mapWith(Number);

/** The (updated_at, id) ascending sort of a table with those columns. */
export const updatedSort = (updatedAt: AnyPgColumn, id: AnyPgColumn): KeysetSort => ({
  name: "updated_asc",
  direction: "asc",
  columns: [
    { column: updatedAt, kind: "timestamp" },
    { column: id, kind: "int" },
  ],
});

/** Rows the first page of a sync counts one by one before it turns to the counters instead (see syncFilter). */
const SYNC_COUNT_PROBE = 1000;

/**
 * What `updated_since` / `include_deleted` add to a list's WHERE (undefined when absent), the
 * next_updated_since to answer (a SQL column, null outside sync), and the pass's total.
 *
 * A pass (a first page and the pages its cursors lead to) keeps the watermark of its first page, carried
 * in its cursors, so every page answers the same next_updated_since and the pass is the fixed range
 * [updated_since, watermark): rows only leave it (a change moves a row past the watermark, into the next
 * pass). Its total is counted once, on the first page, and carried too. A carried watermark is never
 * used beyond the current one, so an edited cursor cannot reach rows a late commit could still precede.
 */
export function syncFilter(q: { updated_since?: string; include_deleted?: "true" | "false" }, updatedAt: AnyPgColumn, carried?: Carried) {
  const since = q.updated_since;
  const watermark = carried
    ? sql<string>`least('epoch'::timestamptz + ${carried.watermark}::bigint * interval '1 millisecond', ${syncWatermarkSql})`
    : syncWatermarkSql;
  const where = since === undefined ? undefined : sql`${updatedAt} >= ${since}::timestamptz and ${updatedAt} < ${watermark}`;
  return {
    sync: since !== undefined,
    includeDeleted: q.include_deleted === "true",
    where,
    /** Never before `updated_since` itself: a sync never goes backwards. */
    nextSince:
      since === undefined
        ? sql<string | null>`null`
        : sql<string | null>`to_char(greatest(${since}::timestamptz, ${watermark}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    /**
     * The exact total of a sync with no other filter, from `counter` (the rows `base` selects): the range is
     * counted row by row when it holds fewer than SYNC_COUNT_PROBE rows (an incremental sync); otherwise it is
     * the counter minus the rows changed before `updated_since` and those at or after the watermark, when each
     * is fewer than SYNC_COUNT_PROBE (a first full sync: none changed before it; the rows past the watermark
     * are the last seconds' changes). Only a sync starting in the middle of a long history (or right after a
     * bulk change) counts its range row by row, once per pass.
     */
    countedTotal(table: PgTable, base: SQL | undefined, counter: SQL<number>) {
      // Each probe reads at most SYNC_COUNT_PROBE rows in (updated_at) order, so PostgreSQL reads them from
      // the (company_id, updated_at, id) index whatever it guesses of the watermark (known only when run).
      const probe = (where: SQL) =>
        sql`(select count(*) from (select 1 from ${table} where ${and(base, where)} order by ${updatedAt} limit ${SYNC_COUNT_PROBE}) as probe)`;
      const range = probe(where!);
      const before = probe(sql`${updatedAt} < ${since}::timestamptz`);
      const after = probe(sql`${updatedAt} >= ${watermark}`);
      // CASE and COALESCE evaluate only the branch they reach: the probes after the first run only when it is full.
      return sql<number>`(select case when d.n < ${SYNC_COUNT_PROBE} then d.n else coalesce(
          (select ${counter} - b.n - a.n from ${before} as b(n), ${after} as a(n) where b.n < ${SYNC_COUNT_PROBE} and a.n < ${SYNC_COUNT_PROBE}),
          (select count(*) from ${table} where ${and(base, where)})) end
        from ${range} as d(n))`.mapWith(Number);
    },
  };
}
