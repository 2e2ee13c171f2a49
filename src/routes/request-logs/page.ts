import { z } from "@hono/zod-openapi";
import { digitsInt, MAX_INT_ID } from "../../http/openapi";
import { decodeCursor, encodeCursor, rowsWithinBudget, utf8Bytes } from "../../http/pagination";
import { isoDateTime } from "../../platform/dates";
import { listRequestLogs, REQUEST_LOGS_SORT, type RequestLogFilters, type RequestLogReader } from "./queries";
import { serializeRequestLog } from "./schema";

/*
 * What the list route and the settings area's page share, built only when called: importing this builds
 * no schema (the settings area loads it without the API's routes).
 */

/** The list's filters as query parameters; the settings area's page takes the same. */
export const requestLogFilterQuery = () => ({
  token_id: digitsInt((n) => n.positive().max(MAX_INT_ID))
    .optional()
    .openapi({ param: { name: "token_id", in: "query" }, description: "Only this token's entries", example: 7 }),
  status: z
    .string()
    .max(3)
    .regex(/^[1-5](\d\d|xx)$/, "A status code (404) or a class (4xx)")
    .optional()
    .openapi({ param: { name: "status", in: "query" }, description: "A status code (`404`) or a class (`4xx`)", example: "4xx" }),
  method: z
    .enum(["GET", "POST", "PUT", "PATCH", "DELETE"])
    .optional()
    .openapi({ param: { name: "method", in: "query" }, description: "Only requests with this method", example: "POST" }),
  operation: z
    .string()
    .max(64)
    .regex(/^[A-Za-z][\w.:-]{0,63}$/, "An operationId such as listClients")
    .optional()
    .openapi({ param: { name: "operation", in: "query" }, description: "Only this operation (its operationId)", example: "createOrder" }),
  since: isoDateTime()
    .optional()
    .openapi({
      param: { name: "since", in: "query" },
      description: "Only requests at or after this instant",
      example: "2026-11-20T00:00:00Z",
    }),
  until: isoDateTime()
    .optional()
    .openapi({ param: { name: "until", in: "query" }, description: "Only requests before this instant", example: "2026-11-21T00:00:00Z" }),
});

/** A page of the log for `reader`: the rows, serialized, and the next cursor (bound to the reader and the filters). */
export async function requestLogPage(
  db: Parameters<typeof listRequestLogs>[0],
  reader: RequestLogReader,
  filters: RequestLogFilters,
  perPage: number,
  cursorText: string | undefined,
) {
  const scope = { companyId: reader.companyId, filters: { ...filters, reader: reader.tokenId ?? null, grant: reader.grantId ?? null } };
  const cursor = cursorText === undefined ? undefined : decodeCursor(cursorText, REQUEST_LOGS_SORT, scope);
  const rows = await listRequestLogs(db, reader, filters, cursor?.key, perPage + 1);
  const fetched = rows.slice(0, perPage);
  const data = fetched.map(serializeRequestLog);
  const fit = rowsWithinBudget(data.map((d) => utf8Bytes(JSON.stringify(d))));
  const last = fetched[fit - 1];
  const more = rows.length > perPage || fit < fetched.length;
  const next_cursor = more && last ? encodeCursor(REQUEST_LOGS_SORT, scope, last.sortKey, (cursor?.page ?? 1) + 1) : null;
  return { data: data.slice(0, fit), pagination: { per_page: perPage, next_cursor } };
}
