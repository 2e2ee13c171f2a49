import { z } from "@hono/zod-openapi";
import type { SQL } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import { isoDateTime } from "../platform/dates";
import type { Db } from "../platform/db";
import { type Carried, carriedTotalSql, SYNC_LAG_SECONDS } from "../platform/incremental-sync";
import { afterKey, type KeyColumn, type KeysetSort, pageIdsCte, type SortKey, type Split } from "../platform/keyset";
import { invalid, notFound } from "./errors";
import { PAGE_BUDGET_BYTES, paginationQuery, paginationSchema, schemaOnce, timestamp } from "./openapi";

/*
 * The wire side of pagination: the `cursor` and sync query parameters, the cursor codec and the
 * pagination object of a list's answer. The SQL a cursor leads to is src/platform/keyset.ts (sorts, the
 * keyset condition, the page's walk) and src/platform/incremental-sync.ts (the sync watermark and totals).
 *
 * A cursor is base64url JSON of
 *   { v: 1, s: sort name, k: the last row's sort key, f: fingerprint, p: the page number it leads to },
 * plus, on the pages of an incremental sync, { t: the pass's total, w: its watermark } (see syncFilter in
 * src/platform/incremental-sync.ts).
 * The fingerprint binds it to the company, the sort and the filters that produced it: used with any other
 * query (another company's token included) it is a 400 and reads nothing. It is a guard against misuse,
 * not a secret: every query's WHERE carries the caller's company whatever the cursor says.
 * A cursor is client input: each key is checked against its column's type and range (`KEY_RANGE`) before
 * any SQL runs, so an edited cursor is a 400, never a failed query.
 */

export { ANSWER_MAX_BYTES, PAGE_BUDGET_BYTES } from "./openapi";

/** The UTF-8 length of a string, without encoding it (a lone surrogate is sent as U+FFFD, 3 bytes). */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // a surrogate pair: 2 units, 4 bytes
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * How many of a page's rows, of these sizes in bytes in list order, fit the page's byte budget: the
 * longest run from the first whose sizes add up to at most `budget`, and at least the first.
 */
export function rowsWithinBudget(sizes: readonly number[], budget = PAGE_BUDGET_BYTES): number {
  let used = 0;
  for (let i = 0; i < sizes.length; i++) {
    used += sizes[i];
    if (used > budget) return Math.max(i, 1);
  }
  return sizes.length;
}

interface Cursor {
  /** The last row's sort key; null for a nullable column's null. */
  key: SortKey;
  page: number;
  carried?: Carried;
}

export const cursorQuery = schemaOnce(() => ({
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
}));

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
    .replace(/=/g, ""); // base64 has "=" only as its end's padding
const fromB64url = (text: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));

/**
 * What each kind of key may hold, in microseconds since 1970 for timestamps and days since 1970 for dates:
 * int4 ids; bigint ids as far as drizzle's number mode reads them exactly; timestamps from PostgreSQL's
 * first (4713 BC) to the end of 9999 (PostgreSQL stores later ones, but the interval arithmetic of
 * src/platform/keyset.ts overflows on some); dates the API stores (0001-01-01 to 9999-12-31).
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

export function encodeCursor(sort: KeysetSort, scope: CursorScope, key: SortKey, page: number, carried?: Carried): string {
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
  return { key: c.k as SortKey, page: c.p as number, carried };
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
  const after = afterKey(sort, cursor?.key);
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
    carriedTotal: cursor?.carried && carriedTotalSql(cursor.carried),
    /**
     * The page's ids as the CTE `page`: an index walk in list order, after the cursor, with the extra
     * row that tells whether another page follows.
     */
    pageIds(db: Db, table: PgTable, id: AnyPgColumn, where: SQL | undefined, split?: Split) {
      return pageIdsCte(db, sort, { after, limit, offset }, table, id, where, split);
    },
    /**
     * The page's rows, serialized, and the pagination object, from the fetched rows (the extra row, if
     * any, dropped); with `next_updated_since` when the list is an incremental sync, whose next cursor
     * carries the pass's total and watermark (next_updated_since is the watermark, see syncFilter in
     * src/platform/incremental-sync.ts). The rows stop at the page's byte budget (PAGE_BUDGET_BYTES):
     * the next cursor then starts right after the last row sent, so nothing is skipped or repeated.
     */
    finish<T, O>(rows: T[], sortKey: (row: T) => SortKey, total: number, serialize: (row: T) => O, nextSince?: string | null) {
      const fetched = rows.slice(0, q.per_page).map((row) => ({ row, out: serialize(row) }));
      const fit = rowsWithinBudget(fetched.map((r) => utf8Bytes(JSON.stringify(r.out))));
      const more = rows.length > q.per_page || fit < fetched.length;
      const sent = fetched.slice(0, fit);
      const carry = nextSince ? { total, watermark: Date.parse(nextSince) } : undefined;
      const next_cursor = more ? encodeCursor(sort, scope, sortKey(sent[sent.length - 1].row), page + 1, carry) : null;
      const pagination = { page, per_page: q.per_page, total, next_cursor };
      return { data: sent.map((r) => r.out), pagination: nextSince ? { ...pagination, next_updated_since: nextSince } : pagination };
    },
  };
}

export const syncQuery = schemaOnce(() => ({
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
}));

export const syncPaginationSchema = schemaOnce(() =>
  paginationSchema()
    .extend({
      next_updated_since: timestamp()
        .optional()
        .openapi({
          description:
            "Only with `updated_since`: every change before this instant is in this sync's pages once `next_cursor` is null. " +
            "Send it as `updated_since` on the next sync: nothing is skipped and nothing unchanged is repeated",
        }),
    })
    .openapi("SyncPagination"),
);

/**
 * A feed's `pagination` with a cursor only (no total; pages cut at `PAGE_BUDGET_BYTES`): the events feed
 * and the request log. `rows` names what a page holds; `ofRows` says the budget counts them (" of events").
 * One component per feed, so the document's names stay what clients know.
 */
export const budgetedCursorPagination = (component: string, rows: string, ofRows = "") =>
  schemaOnce(() =>
    z
      .object({
        per_page: z.number().int(),
        next_cursor: z
          .string()
          .nullable()
          .openapi({
            description:
              `Pass as \`cursor\` (with the same filters) for the older ${rows} after this page; null on the last page. A page may hold ` +
              `fewer than \`per_page\` ${rows} while more follow (it stops at ${PAGE_BUDGET_BYTES / 1048576} MiB${ofRows}): walk until this is null`,
          }),
      })
      .openapi(component),
  );

/**
 * A list under a parent row (`/orders/{id}/approvals`, `/webhook-endpoints/{id}/deliveries`): its query
 * (a page or a cursor, and one `status`) and its page, read in one statement from the parent row.
 */
export const underParent = {
  query: <S extends readonly [string, ...string[]]>(statuses: S, description: string) =>
    z.object({
      ...paginationQuery(),
      ...cursorQuery(),
      status: z
        .enum(statuses)
        .optional()
        .openapi({ param: { name: "status", in: "query" }, description }),
    }),
  /**
   * The page from the statement's rows: none means no such parent for this company (404 naming
   * `parent`); a parent without children gives one row of nulls, for which `child` answers null.
   */
  finish<R extends { total: number; sortKey: SortKey }, T, O>(
    pos: ReturnType<typeof listPosition>,
    rows: R[],
    parent: string,
    child: (row: R) => T | null,
    serialize: (item: T) => O,
  ) {
    if (!rows.length) throw notFound(parent);
    const found = rows.flatMap((r) => {
      const item = child(r);
      return item === null ? [] : [{ item, sortKey: r.sortKey }];
    });
    return pos.finish(
      found,
      (r) => r.sortKey,
      rows[0].total,
      (r) => serialize(r.item),
    );
  },
};
