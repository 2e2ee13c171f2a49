import { and, desc, eq, getTableColumns, gte, lt, type SQL, sql } from "drizzle-orm";
import { requestLogs } from "../../db/schema/request-logs";
import type { Db } from "../../platform/db";
import { afterKey, type KeysetSort, type SortKey, sortKeySql } from "../../platform/keyset";
import { REQUEST_LOG_RETENTION_DAYS } from "../../platform/request-log-store";
import type { RequestLogRow } from "./schema";

/** Newest first; the id breaks ties within a microsecond. */
export const REQUEST_LOGS_SORT: KeysetSort = {
  name: "request_logs_desc",
  direction: "desc",
  columns: [
    { column: requestLogs.createdAt, kind: "timestamp" },
    { column: requestLogs.id, kind: "bigint" },
  ],
};

/**
 * Who may read which entries: the company's, and within it one token's (an API token reads its own only)
 * or one OAuth grant's (an app reads what its grant did, whichever of its access tokens did it).
 */
export interface RequestLogReader {
  companyId: number;
  tokenId?: number;
  grantId?: number;
}

/** The reader of an API request's `auth`: its grant's entries for an OAuth access token, else its token's. */
export const readerOf = (auth: { companyId: number; tokenId: number; grant?: { id: number } }): RequestLogReader =>
  auth.grant ? { companyId: auth.companyId, grantId: auth.grant.id } : { companyId: auth.companyId, tokenId: auth.tokenId };

/** The reader's own entries only (a settings-area reader has neither: the whole company's). */
const ownEntries = (reader: RequestLogReader) =>
  reader.grantId !== undefined
    ? eq(requestLogs.oauthGrantId, reader.grantId)
    : reader.tokenId === undefined
      ? undefined
      : eq(requestLogs.tokenId, reader.tokenId);

export interface RequestLogFilters {
  token_id?: number;
  /** A code (`404`) or a class (`4xx`). */
  status?: string;
  method?: string;
  operation?: string;
  since?: string;
  until?: string;
}

/** `404` → status 404 (in class 4); `4xx` → class 4. The class is always in the condition: the index on it serves both. */
function statusCondition(status: string): SQL {
  const statusClass = Number(status[0]);
  const byClass = eq(requestLogs.statusClass, statusClass);
  return status.endsWith("xx") ? byClass : and(byClass, eq(requestLogs.status, Number(status)))!;
}

const retained = () => gte(requestLogs.createdAt, sql`now() - make_interval(days => ${REQUEST_LOG_RETENTION_DAYS})`);

/** A page of entries newest first after `after` (a cursor's key), `limit` rows, each with its sort key. */
export async function listRequestLogs(
  db: Db,
  reader: RequestLogReader,
  f: RequestLogFilters,
  after: SortKey | undefined,
  limit: number,
): Promise<(RequestLogRow & { sortKey: SortKey })[]> {
  const tokenId = reader.tokenId ?? f.token_id;
  const where = and(
    eq(requestLogs.companyId, reader.companyId),
    retained(),
    tokenId === undefined ? undefined : eq(requestLogs.tokenId, tokenId),
    ownEntries(reader),
    // A token's own entries asked for under another token's id (or a grant's under any token's): none.
    (reader.tokenId !== undefined || reader.grantId !== undefined) && f.token_id !== undefined && f.token_id !== reader.tokenId
      ? sql`false`
      : undefined,
    f.status === undefined ? undefined : statusCondition(f.status),
    f.method === undefined ? undefined : eq(requestLogs.method, f.method),
    f.operation === undefined ? undefined : eq(requestLogs.operation, f.operation),
    f.since === undefined ? undefined : gte(requestLogs.createdAt, new Date(f.since)),
    f.until === undefined ? undefined : lt(requestLogs.createdAt, new Date(f.until)),
    afterKey(REQUEST_LOGS_SORT, after),
  );
  return db
    .select({ ...getTableColumns(requestLogs), sortKey: sortKeySql(REQUEST_LOGS_SORT) })
    .from(requestLogs)
    .where(where)
    .orderBy(desc(requestLogs.createdAt), desc(requestLogs.id))
    .limit(limit);
}

/** A request's entries (the request's own first, then an MCP request's tool calls), as `reader` may read them. */
export async function findRequestLogs(db: Db, reader: RequestLogReader, requestId: string): Promise<RequestLogRow[]> {
  return db
    .select()
    .from(requestLogs)
    .where(and(eq(requestLogs.companyId, reader.companyId), eq(requestLogs.requestId, requestId), retained(), ownEntries(reader)))
    .orderBy(requestLogs.seq, requestLogs.createdAt)
    .limit(1000);
}
