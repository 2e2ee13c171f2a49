import { z } from "@hono/zod-openapi";
import { eq, sql } from "drizzle-orm";
import { companies } from "../../db/schema/companies";
import { webhookEndpoints } from "../../db/schema/webhooks";
import { createAuthRoute, jsonContent, paginationQuery, paginationSchema, type Router } from "../../http/openapi";
import { cursorQuery, listPosition } from "../../http/pagination";
import { type KeysetSort, orderBySql, sortKeySql } from "../../platform/keyset";
import { serializeEndpoint, webhookEndpointSchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/webhook-endpoints",
  operationId: "listWebhookEndpoints",
  tags: ["Webhooks"],
  summary: "List webhook endpoints",
  description:
    "The company's webhook endpoints, ordered by id ascending (creation order), enabled and disabled alike; never their secrets. " +
    "Follow `pagination.next_cursor` (as `cursor`) for the next page.",
  request: { query: z.object({ ...paginationQuery(), ...cursorQuery() }) },
  responses: {
    200: {
      description: "A page of webhook endpoints",
      content: jsonContent(() => z.object({ data: z.array(webhookEndpointSchema()), pagination: paginationSchema() })),
    },
  },
});

const SORT: KeysetSort = { name: "id", direction: "asc", columns: [{ column: webhookEndpoints.id, kind: "int" }] };

export const registerListWebhookEndpoints = (api: Router) =>
  api.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { companyId } = c.get("auth");
    const pos = listPosition(query, c.req.query("page") !== undefined, SORT, { companyId, filters: {} });
    const where = eq(webhookEndpoints.companyId, companyId);
    const db = c.get("db");
    // One statement: the page's ids, its rows and the total (a company has few endpoints).
    const pageIds = pos.pageIds(db, webhookEndpoints, webhookEndpoints.id, where);
    const rows = await db
      .with(pageIds)
      .select({
        total: sql<number>`(select count(*) from ${webhookEndpoints} where ${where})`.mapWith(Number),
        endpoint: webhookEndpoints,
        sortKey: sortKeySql(SORT),
      })
      .from(companies)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, pageIds.id))
      .where(eq(companies.id, companyId))
      .orderBy(...orderBySql(SORT));
    const found = rows.flatMap((r) => (r.endpoint ? [{ endpoint: r.endpoint, sortKey: r.sortKey }] : []));
    return c.json(
      pos.finish(
        found,
        (r) => r.sortKey,
        rows[0]?.total ?? 0,
        (r) => serializeEndpoint(r.endpoint),
      ),
      200,
    );
  });
