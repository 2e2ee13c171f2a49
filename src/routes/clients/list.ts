import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { clients } from "../../db/schema/clients";
import { companies } from "../../db/schema/companies";
import { clientSchema, liveClients, serializeClient } from "../../domain/client";
import { externalIdText } from "../../domain/external";
import { createAuthRoute, jsonContent, paginationQuery, type Router } from "../../http/openapi";
import { cursorQuery, listPosition, syncPaginationSchema, syncQuery } from "../../http/pagination";
import { syncFilter, updatedSort } from "../../platform/incremental-sync";
import { type KeysetSort, orderBySql, sortKeySql } from "../../platform/keyset";
import { countedTotal } from "../../platform/list-counts";
import { clientSearch, searchPage } from "./search";

const route = createAuthRoute({
  method: "get",
  path: "/clients",
  operationId: "listClients",
  tags: ["Clients"],
  summary: "List clients",
  description:
    "Live (not soft-deleted) clients of the caller's company, ordered by id ascending (creation order), so pages stay stable while clients are added. " +
    "`q` (any length from one character, after trimming) is a case-insensitive substring match over company name, first name, last name, " +
    'full name ("first last"), email and phone; `%`, `_` and `\\` in `q` match literally. When `q` consists only of digits, spaces and ' +
    'phone punctuation ( ) + - . /, it also matches phone numbers with punctuation and spaces ignored ("555-0102" finds "(555) 010 2"). ' +
    "Every page carries `pagination.next_cursor`: pass it as `cursor` (with the same `q`) for the next page, which costs the same at any depth; " +
    "`page` also works, but a deep `page` costs time in proportion to its depth. " +
    "`updated_since` turns the list into an incremental sync (ordered by `updated_at`, then `id`), and `include_deleted=true` adds " +
    "soft-deleted clients as tombstones (`deleted_at` set): see the API conventions. " +
    "`external_id` finds the client with that external id (at most one live client has it).",
  request: {
    query: z.object({
      ...paginationQuery(),
      ...cursorQuery(),
      ...syncQuery(),
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
        .openapi({
          param: { name: "q", in: "query" },
          description: "Search text, one character or more after trimming; blank lists every client",
          example: "lopez",
        }),
    }),
  },
  responses: {
    200: {
      description: "A page of clients",
      content: jsonContent(() => z.object({ data: z.array(clientSchema()), pagination: syncPaginationSchema() })),
    },
  },
});

/** Id order: the order of creation, so pages stay stable while clients are added. */
export const CLIENTS_SORT: KeysetSort = { name: "id", direction: "asc", columns: [{ column: clients.id, kind: "int" }] };
/** Incremental sync: changes in the order they were made. */
const CLIENTS_SYNC_SORT = updatedSort(clients.updatedAt, clients.id);

export const registerListClients = (api: Router) =>
  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { companyId } = c.get("auth");
    const term = query.q?.trim() || undefined;
    const sort = query.updated_since === undefined ? CLIENTS_SORT : CLIENTS_SYNC_SORT;
    const includeDeleted = query.include_deleted === "true";
    const externalId = query.external_id;
    const filters = {
      q: term ?? null,
      updated_since: query.updated_since ?? null,
      include_deleted: includeDeleted,
      ...(externalId === undefined ? {} : { external_id: externalId }),
    };
    const pos = listPosition(query, c.req.query("page") !== undefined, sort, { companyId, filters });
    const sync = syncFilter(query, clients.updatedAt, pos.carried);
    const base = includeDeleted ? eq(clients.companyId, companyId) : liveClients(companyId);
    const scope = and(base, sync.where, externalId === undefined ? undefined : eq(clients.externalId, externalId));
    const search = term ? clientSearch(term, companyId) : undefined;
    const db = c.get("db");

    // ONE statement: the page's ids, the page's rows joined to them, and the exact total (a sync pass's
    // later pages carry the total of its first; the counters where they have it; else a count).
    const counter = countedTotal(companyId, includeDeleted ? "clients/include_deleted=true" : "clients");
    // The search index holds live clients only: a search among tombstones checks each row of the list.
    const plan =
      // An external id names at most one client: its filter is checked row by row, as a search among tombstones.
      search && !includeDeleted && externalId === undefined
        ? searchPage(search, {
            companyId,
            sort,
            scope,
            after: pos.after,
            limit: pos.limit,
            offset: pos.offset,
            total: pos.carried ? "known" : sync.sync ? "found" : "search",
          })
        : undefined;
    const where = and(scope, search?.check);
    const pageIds = plan ? db.$with("page", { id: clients.id }).as(plan.page) : pos.pageIds(db, clients, clients.id, where);
    const matches = plan && db.$with("found", { id: clients.id }).as(plan.found);
    const total =
      pos.carriedTotal ??
      plan?.total ??
      (search || externalId !== undefined
        ? sql<number>`(select count(*) from ${clients} where ${where})`.mapWith(Number)
        : sync.sync
          ? sync.countedTotal(clients, base, counter)
          : counter);
    const rows = await db
      .with(...(matches ? [matches, pageIds] : [pageIds]))
      .select({ total, nextSince: sync.nextSince, client: clients, sortKey: sortKeySql(sort) })
      .from(companies)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(clients, eq(clients.id, pageIds.id))
      .where(eq(companies.id, companyId))
      .orderBy(...orderBySql(sort));
    const found = rows.flatMap((r) => (r.client ? [{ client: r.client, sortKey: r.sortKey }] : []));
    const page = pos.finish(
      found,
      (r) => r.sortKey,
      rows[0]?.total ?? 0,
      (r) => serializeClient(r.client),
      rows[0]?.nextSince,
    );
    return c.json(page, 200);
  });
