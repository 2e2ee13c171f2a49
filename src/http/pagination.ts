import { z } from "@hono/zod-openapi";
import { and, is, SQL, sql } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { listCounts } from "../db/schema/counts";
import { isoDateTime } from "../platform/dates";
import type { Db } from "../platform/db";
import { invalid } from "./errors";
import { PaginationSchema, timestamp } from "./openapi";

/*
 * Keyset (cursor) pagination. A cursor is base64url JSON of
 *   { v: 1, s: sort name, k: the last row's sort key, f: fingerprint, p: the page number it leads to },
 * plus, on the pages of an incremental sync, { t: the pass's total, w: its watermark } (see syncFilter).
 * The fingerprint binds it to the company, the sort and the filters that produced it: used with any other
 * query (another company's token included) it is a 400 and reads nothing. It is a guard against misuse,
 * not a secret: every query's WHERE carries the caller's company whatever the cursor says.
 * Keys are strings of digits (ids, timestamps as microseconds since the epoch, so PostgreSQL's
 * microseconds survive the trip, and dates as days since the epoch), or null for a nullable column's null.
 * A cursor is client input: each key is checked against its column's type and range (`KEY_RANGE`) before
 * any SQL runs, so an edited cursor is a 400, never a failed query.
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

/** What the first page of a sync pass hands on to the pass's later pages: its total and its watermark (ms since the epoch). */
export interface Carried {
  total: number;
  watermark: number;
}

interface Cursor {
  /** The last row's sort key; null for a nullable column's null. */
  key: (string | null)[];
  page: number;
  carried?: Carried;
}

export const cursorQuery = {
  cursor: z
    .string()
    .max(512)
    .optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description:
        "Opaque cursor from `pagination.next_cursor` of the previous page: continues right after its last row " +
        "(stable while rows are added or deleted). Use it with the same filters; not together with `page`.",
    }),
};

// FNV-1a: a short, stable fingerprint; integrity comes from the company in every WHERE, not from this.
function fingerprint(parts: unknown): string {
  let h = 0x811c9dc5;
  for (const ch of JSON.stringify(parts)) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

const b64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromB64url = (text: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

/**
 * What each kind of key may hold, in microseconds since 1970 for timestamps and days since 1970 for dates:
 * int4 ids; bigint ids as far as drizzle's number mode reads them exactly; timestamps from PostgreSQL's
 * first (4713 BC) to the end of 9999 (PostgreSQL stores later ones, but `keyValue`'s interval arithmetic
 * overflows on some); dates the API stores (0001-01-01 to 9999-12-31).
 */
const KEY_RANGE = {
  int: [0n, 2_147_483_647n],
  bigint: [0n, BigInt(Number.MAX_SAFE_INTEGER)],
  timestamp: [-210_866_803_200_000_000n, 253_402_300_799_999_999n],
  date: [-719_162n, 2_932_896n],
} as const;

/**
 * A key as the cursor carries it: a string of at most 19 digits (a sign for timestamps and dates) within
 * its column's range, or null for a nullable column.
 */
function validKey(value: unknown, column: KeyColumn): boolean {
  if (value === null) return column.nullable === true;
  const signed = column.kind === "timestamp" || column.kind === "date";
  if (typeof value !== "string" || !(signed ? /^-?\d{1,19}$/ : /^\d{1,19}$/).test(value)) return false;
  const n = BigInt(value);
  return n >= KEY_RANGE[column.kind][0] && n <= KEY_RANGE[column.kind][1];
}

/** What a cursor is bound to besides its sort: the company and the list's filters. */
export type CursorScope = { companyId: number; filters: Record<string, unknown> };

// The carried part is in the fingerprint too: a cursor edited by hand is refused like any foreign one.
const cursorFingerprint = (sort: KeysetSort, scope: CursorScope, carried?: Carried) =>
  fingerprint(
    carried ? [sort.name, scope.companyId, scope.filters, carried.total, carried.watermark] : [sort.name, scope.companyId, scope.filters],
  );

export function encodeCursor(sort: KeysetSort, scope: CursorScope, key: (string | null)[], page: number, carried?: Carried): string {
  const f = cursorFingerprint(sort, scope, carried);
  return b64url(JSON.stringify({ v: 1, s: sort.name, k: key, f, p: page, ...(carried && { t: carried.total, w: carried.watermark }) }));
}

/** A count or an instant PostgreSQL can take: whole, not negative, at most year 275,000 in ms. */
const carriedNumber = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= 8.64e15;

const badCursor = (message: string) => invalid("Invalid cursor", [{ field: "cursor", message }]);

/** The cursor's position, or a 400 naming `cursor` when it is malformed or was made for another query. */
export function decodeCursor(text: string, sort: KeysetSort, scope: CursorScope): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromB64url(text));
  } catch {
    throw badCursor("Not a cursor returned by this list");
  }
  const c = parsed as { v?: unknown; s?: unknown; k?: unknown; f?: unknown; p?: unknown; t?: unknown; w?: unknown };
  const carries = c !== null && typeof c === "object" && (c.t !== undefined || c.w !== undefined);
  const wellFormed =
    c !== null &&
    typeof c === "object" &&
    c.v === 1 &&
    Array.isArray(c.k) &&
    c.k.length === sort.columns.length &&
    c.k.every((v, i) => validKey(v, sort.columns[i])) &&
    Number.isSafeInteger(c.p) &&
    (c.p as number) >= 2 &&
    (!carries || (carriedNumber(c.t) && carriedNumber(c.w)));
  if (!wellFormed) throw badCursor("Not a cursor returned by this list");
  const carried = carries ? { total: c.t as number, watermark: c.w as number } : undefined;
  if (c.s !== sort.name || c.f !== cursorFingerprint(sort, scope, carried)) {
    throw badCursor("This cursor belongs to another query: use it with the filters of the page that returned it");
  }
  return { key: c.k as (string | null)[], page: c.p as number, carried };
}

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
  sql<(string | null)[]>`array[${sql.join(
    sort.columns.map((c) => sql`${KEY_EXPR[c.kind](c.column)}::text`),
    sql`, `,
  )}]`;

/** The sort's expressions, in order (each column, or a nullable one with its nulls last). */
export const sortExprs = (sort: KeysetSort) => sort.columns.map((c) => sortExpr(sort, c));

/** ORDER BY for the sort. */
export const orderBySql = (sort: KeysetSort) => sortExprs(sort).map((e) => (sort.direction === "asc" ? sql`${e} asc` : sql`${e} desc`));

/** Rows strictly after the cursor's key in the sort's order: one row comparison an index on the sort expressions serves. */
export function afterCursor(sort: KeysetSort, cursor: Cursor | undefined): SQL | undefined {
  if (!cursor) return undefined;
  const cols = sql.join(sortExprs(sort), sql`, `);
  const vals = sql.join(
    sort.columns.map((c, i) => keyValue(sort, c, cursor.key[i])),
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

/**
 * How a list request is positioned: by `cursor` (keyset, any depth at the cost of page 1) or by `page`
 * (OFFSET: PostgreSQL still walks every earlier row). Both are a 400 together.
 */
export function listPosition(
  q: { page: number; per_page: number; cursor?: string },
  pageGiven: boolean,
  sort: KeysetSort,
  scope: CursorScope,
) {
  if (q.cursor !== undefined && pageGiven) {
    throw invalid("Send either page or cursor", [{ field: "cursor", message: "Cannot be combined with page" }]);
  }
  const cursor = q.cursor === undefined ? undefined : decodeCursor(q.cursor, sort, scope);
  const page = cursor?.page ?? q.page;
  const after = afterCursor(sort, cursor);
  const offset = cursor ? 0 : (page - 1) * q.per_page;
  /** One row more than the page, to know whether another page follows. */
  const limit = q.per_page + 1;
  return {
    /** The cursor's position as a condition (undefined on a first page), and the page's window after it. */
    after,
    limit,
    offset,
    /** The sync pass's total and watermark, from its first page (undefined outside a pass's later pages). */
    carried: cursor?.carried,
    /** The carried total as the statement's total. */
    carriedTotal: cursor?.carried && sql<number>`${cursor.carried.total}::bigint`.mapWith(Number),
    /**
     * The page's ids as the CTE `page`: an index walk in list order, after the cursor, with the extra
     * row that tells whether another page follows.
     */
    pageIds(db: Db, table: PgTable, id: AnyPgColumn, where: SQL | undefined, split?: Split) {
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
    },
    /**
     * The page's rows and the pagination object, from the fetched rows (the extra row, if any, dropped);
     * with `next_updated_since` when the list is an incremental sync, whose next cursor carries the
     * pass's total and watermark (next_updated_since is the watermark, see syncFilter).
     */
    finish<T>(rows: T[], sortKey: (row: T) => (string | null)[], total: number, nextSince?: string | null) {
      const more = rows.length > q.per_page;
      const data = more ? rows.slice(0, q.per_page) : rows;
      const carry = nextSince ? { total, watermark: Date.parse(nextSince) } : undefined;
      const next_cursor = more ? encodeCursor(sort, scope, sortKey(data[data.length - 1]), page + 1, carry) : null;
      const pagination = { page, per_page: q.per_page, total, next_cursor };
      return { data, pagination: nextSince ? { ...pagination, next_updated_since: nextSince } : pagination };
    },
  };
}

/**
 * An exact total from the trigger-kept counters (a few rows), as a scalar subquery: `list` is a list
 * ("clients", "orders") or one counted filter value of it ("orders/status_id=4", see drizzle/0005), or
 * several values of one filter, whose counts add up (`status=3,5`).
 */
export const countedTotal = (companyId: number, list: string | SQL | readonly string[]) =>
  sql<number>`(select coalesce(sum(${listCounts.n}), 0) from ${listCounts} where ${listCounts.companyId} = ${companyId} and ${
    typeof list === "string" || is(list, SQL)
      ? sql`${listCounts.list} = ${list}`
      : sql`${listCounts.list} = any(${`{${list.join(",")}}`}::text[])`
  })`.mapWith(Number);

/*
 * Incremental sync: `updated_since` switches a list to (updated_at, id) ascending with keyset cursors.
 * `updated_at` is set by the database to now(), the writing transaction's START time, so a row can commit
 * with an updated_at older than rows a sync already read. Each page therefore only returns rows changed
 * before a watermark no transaction still running can write behind: the start of the oldest transaction
 * in progress on this database (the API's own role sees all of its sessions), and at most
 * now() - SYNC_LAG_SECONDS for what that view cannot show (sessions of other roles, a transaction in its
 * first instant). The watermark is cut to whole milliseconds, so the wire's timestamps carry it exactly.
 */
export const SYNC_LAG_SECONDS = 2;
export const syncWatermarkSql = sql<string>`(select date_trunc('milliseconds', least(now() - make_interval(secs => ${SYNC_LAG_SECONDS}), (select min(xact_start) from pg_stat_activity where datname = current_database()))))`;

export const syncQuery = {
  updated_since: isoDateTime()
    .optional()
    .openapi({
      param: { name: "updated_since", in: "query" },
      description:
        "Incremental sync: only rows whose `updated_at` is at or after this instant, ordered by `updated_at` then `id` ascending, " +
        `and only rows changed more than ${SYNC_LAG_SECONDS} seconds ago (see \`pagination.next_updated_since\`). ` +
        "Follow `next_cursor` to the end, then keep `pagination.next_updated_since` for the next sync.",
      example: "2026-11-21T13:37:00.000Z",
    }),
  include_deleted: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "include_deleted", in: "query" },
      description: "`true` also returns soft-deleted rows (tombstones: `deleted_at` set), so a sync sees deletions",
    }),
};

export const SyncPaginationSchema = PaginationSchema.extend({
  next_updated_since: timestamp()
    .optional()
    .openapi({
      description:
        "Only with `updated_since`: every change before this instant is in this sync's pages once `next_cursor` is null. " +
        "Send it as `updated_since` on the next sync: nothing is skipped and nothing unchanged is repeated",
    }),
}).openapi("SyncPagination");

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
