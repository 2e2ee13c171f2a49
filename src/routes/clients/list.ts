import { z } from "@hono/zod-openapi";
import { and, eq, ilike, like, or, type SQL, sql } from "drizzle-orm";
import { clientSearchText, clients, companies } from "../../db/schema";
import { ClientSchema, liveClients, serializeClient } from "../../domain/client";
import { externalIdText } from "../../domain/external";
import { createAuthRoute, likeContains, paginationQuery, type Router } from "../../http/openapi";
import {
  countedTotal,
  cursorQuery,
  type KeysetSort,
  listPosition,
  orderBySql,
  SyncPaginationSchema,
  sortKeySql,
  syncFilter,
  syncQuery,
  updatedSort,
} from "../../http/pagination";

/** Shortest `q`: trigram indexes need three characters to find matches without reading every client. */
const MIN_SEARCH = 3;

const route = createAuthRoute({
  method: "get",
  path: "/clients",
  operationId: "listClients",
  tags: ["Clients"],
  summary: "List clients",
  description:
    "Live (not soft-deleted) clients of the caller's company, ordered by id ascending (creation order), so pages stay stable while clients are added. " +
    '`q` is a case-insensitive substring match over company name, first name, last name, full name ("first last"), email and phone; ' +
    "`%`, `_` and `\\` in `q` match literally. When `q` consists only of digits, spaces and phone punctuation ( ) + - . /, " +
    'it also matches phone numbers with punctuation and spaces ignored ("555-0102" finds "(555) 010 2"). ' +
    `A \`q\` shorter than ${MIN_SEARCH} characters is a 400: it would match most clients, and its exact total could not be counted quickly. ` +
    "Every page carries `pagination.next_cursor`: pass it as `cursor` (with the same `q`) for the next page, which costs the same at any depth; " +
    "`page` also works, but a deep `page` costs time in proportion to its depth. " +
    "`updated_since` turns the list into an incremental sync (ordered by `updated_at`, then `id`), and `include_deleted=true` adds " +
    "soft-deleted clients as tombstones (`deleted_at` set): see the API conventions. " +
    "`external_id` finds the client with that external id (at most one live client has it).",
  request: {
    query: z.object({
      ...paginationQuery,
      ...cursorQuery,
      ...syncQuery,
      external_id: externalIdText()
        .optional()
        .openapi({
          param: { name: "external_id", in: "query" },
          description: "Only the client with this external id (exact match)",
          example: "shopify-1042",
        }),
      q: z
        .string()
        .max(200)
        .optional()
        .refine((q) => q === undefined || [...q.trim()].length === 0 || [...q.trim()].length >= MIN_SEARCH, {
          message: `Must be at least ${MIN_SEARCH} characters (blank means no search)`,
        })
        .openapi({
          param: { name: "q", in: "query" },
          description: `Search text, at least ${MIN_SEARCH} characters after trimming; blank lists every client`,
          example: "lopez",
        }),
    }),
  },
  responses: {
    200: {
      description: "A page of clients",
      content: { "application/json": { schema: z.object({ data: z.array(ClientSchema), pagination: SyncPaginationSchema }) } },
    },
  },
});

const PHONE_QUERY = /^[\d\s()+\-./]+$/;

/** Id order: the order of creation, so pages stay stable while clients are added. */
export const CLIENTS_SORT: KeysetSort = { name: "id", direction: "asc", columns: [{ column: clients.id, kind: "int" }] };
/** Incremental sync: changes in the order they were made. */
const CLIENTS_SYNC_SORT = updatedSort(clients.updatedAt, clients.id);

function searchCondition(q: string): SQL {
  // The separator between the searchable fields never matches, so a match never spans two fields.
  if (q.includes("\x1f")) return sql`false`;
  const pattern = likeContains(q);
  const conditions = [ilike(clientSearchText(clients), pattern)];
  const digits = q.replace(/\D/g, "");
  if (digits && PHONE_QUERY.test(q)) conditions.push(like(clients.phoneDigits, `%${digits}%`));
  return or(...conditions)!;
}

export const registerListClients = (api: Router) =>
  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { companyId } = c.var.auth;
    const term = query.q?.trim() || undefined;
    const sync = syncFilter(query, clients.updatedAt);
    const sort = sync.sync ? CLIENTS_SYNC_SORT : CLIENTS_SORT;
    const filters = {
      q: term ?? null,
      updated_since: query.updated_since ?? null,
      include_deleted: sync.includeDeleted,
      ...(query.external_id === undefined ? {} : { external_id: query.external_id }),
    };
    const pos = listPosition(query, c.req.query("page") !== undefined, sort, { companyId, filters });
    const where = and(
      sync.includeDeleted ? eq(clients.companyId, companyId) : liveClients(companyId),
      term ? searchCondition(term) : undefined,
      query.external_id === undefined ? undefined : eq(clients.externalId, query.external_id),
      sync.where,
    );
    const db = c.var.db;

    // ONE statement: the page's ids (an index walk; the extra row tells whether a next page exists), the
    // page's rows joined to them, and the exact total: the counters for all live clients, a count otherwise.
    const pageIds = pos.pageIds(db, clients, clients.id, where);
    const counted = !term && !sync.sync && !sync.includeDeleted && query.external_id === undefined;
    const total = counted
      ? countedTotal(companyId, "clients")
      : sql<number>`(select count(*) from ${clients} where ${where})`.mapWith(Number);
    const rows = await db
      .with(pageIds)
      .select({ total, nextSince: sync.nextSince, client: clients, sortKey: sortKeySql(sort) })
      .from(companies)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(clients, eq(clients.id, pageIds.id))
      .where(eq(companies.id, companyId))
      .orderBy(...orderBySql(sort));
    const found = rows.flatMap((r) => (r.client ? [{ client: r.client, sortKey: r.sortKey }] : []));
    const { data, pagination } = pos.finish(found, (r) => r.sortKey, rows[0]?.total ?? 0, rows[0]?.nextSince);
    return c.json({ data: data.map((r) => serializeClient(r.client)), pagination }, 200);
  });
