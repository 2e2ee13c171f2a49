import { z } from "@hono/zod-openapi";
import { and, asc, count, eq, ilike, isNull, like, or, type SQL, sql } from "drizzle-orm";
import { clients } from "../../db/schema";
import { ClientSchema, serializeClient } from "../../domain/client";
import { createAuthRoute, likeContains, PaginationSchema, paginationQuery, type Router } from "../../http/openapi";
import { pageTotal } from "../../http/pagination";

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
    'it also matches phone numbers with punctuation and spaces ignored ("555-0102" finds "(555) 010 2").',
  request: {
    query: z.object({
      ...paginationQuery,
      q: z
        .string()
        .max(200)
        .optional()
        .openapi({ param: { name: "q", in: "query" }, description: "Search text", example: "lopez" }),
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

function searchCondition(q: string): SQL | undefined {
  const pattern = likeContains(q);
  const conditions = [
    ilike(clients.companyName, pattern),
    ilike(clients.firstName, pattern),
    ilike(clients.lastName, pattern),
    ilike(clients.fullName, pattern),
    ilike(clients.email, pattern),
  ];
  const digits = q.replace(/\D/g, "");
  if (digits && PHONE_QUERY.test(q)) conditions.push(like(clients.phoneDigits, `%${digits}%`));
  return or(...conditions);
}

export const registerListClients = (api: Router) =>
  api.openapi(route, async (c) => {
    const { page, per_page, q } = c.req.valid("query");
    const { companyId } = c.var.auth;
    const term = q?.trim();
    const where = and(eq(clients.companyId, companyId), isNull(clients.deletedAt), term ? searchCondition(term) : undefined);

    // One round trip: the page with the total as a window count.
    const rows = await c.var.db
      .select({ client: clients, total: sql<number>`count(*) over ()`.mapWith(Number) })
      .from(clients)
      .where(where)
      .orderBy(asc(clients.id))
      .limit(per_page)
      .offset((page - 1) * per_page);
    const total = await pageTotal(rows, page, async () => (await c.var.db.select({ n: count() }).from(clients).where(where))[0].n);

    return c.json({ data: rows.map((r) => serializeClient(r.client)), pagination: { page, per_page, total } }, 200);
  });
