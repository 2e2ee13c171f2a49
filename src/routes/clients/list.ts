import { z } from "@hono/zod-openapi";
import { and, asc, eq, ilike, like, or, type SQL, sql } from "drizzle-orm";
import { clientSearchText, clients, companies } from "../../db/schema";
import { ClientSchema, liveClients, serializeClient } from "../../domain/client";
import { createAuthRoute, likeContains, PaginationSchema, paginationQuery, type Router } from "../../http/openapi";
import { countedTotal, cursorQuery, type KeysetSort, listPosition, orderBySql } from "../../http/pagination";

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
    "`page` also works, but a deep `page` costs time in proportion to its depth.",
  request: {
    query: z.object({
      ...paginationQuery,
      ...cursorQuery,
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
      content: { "application/json": { schema: z.object({ data: z.array(ClientSchema), pagination: PaginationSchema }) } },
    },
  },
});

const PHONE_QUERY = /^[\d\s()+\-./]+$/;

/** Id order: the order of creation, so pages stay stable while clients are added. */
export const CLIENTS_SORT: KeysetSort = { name: "id", direction: "asc", columns: [{ column: clients.id, kind: "int" }] };

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
    const pos = listPosition(query, c.req.query("page") !== undefined, CLIENTS_SORT, { companyId, filters: { q: term ?? null } });
    const where = and(liveClients(companyId), term ? searchCondition(term) : undefined);
    const db = c.var.db;

    // ONE statement: the page's ids (an index walk; the extra row tells whether a next page exists), the
    // page's rows joined to them, and the exact total: the counters without a search, a count with one.
    const pageIds = db.$with("page").as(
      db
        .select({ id: clients.id })
        .from(clients)
        .where(and(where, pos.after))
        .orderBy(...orderBySql(CLIENTS_SORT))
        .limit(pos.limit)
        .offset(pos.offset),
    );
    const total = term ? sql<number>`(select count(*) from ${clients} where ${where})`.mapWith(Number) : countedTotal(companyId, "clients");
    const rows = await db
      .with(pageIds)
      .select({ total, client: clients })
      .from(companies)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(clients, eq(clients.id, pageIds.id))
      .where(eq(companies.id, companyId))
      .orderBy(asc(pageIds.id));
    const found = rows.flatMap((r) => (r.client ? [r.client] : []));
    const { data, pagination } = pos.finish(found, (r) => [String(r.id)], rows[0]?.total ?? 0);
    return c.json({ data: data.map(serializeClient), pagination }, 200);
  });
