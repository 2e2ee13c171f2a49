import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../../db/schema/webhooks";
import { createAuthRoute, idParam, jsonContent, paginationSchema, type Router } from "../../http/openapi";
import { listPosition, underParent } from "../../http/pagination";
import { type KeysetSort, orderBySql, sortKeySql } from "../../platform/keyset";
import { ownEndpoint } from "./queries";
import { DELIVERY_STATUSES, serializeDelivery, webhookDeliverySchema } from "./schema";

const route = createAuthRoute({
  method: "get",
  path: "/webhook-endpoints/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Webhooks"],
  summary: "List an endpoint's deliveries",
  description:
    "The endpoint's delivery log, newest first: one delivery per event sent (or to be sent) to it, with its status, attempts, " +
    "the last answer's status and the first bytes of its body, and the last error. `status` filters. " +
    "Follow `pagination.next_cursor` (as `cursor`, with the same `status`) for older deliveries.",
  request: {
    params: idParam("Webhook endpoint id"),
    query: underParent.query(DELIVERY_STATUSES, "Only deliveries in this status"),
  },
  errors: [404],
  responses: {
    200: {
      description: "A page of deliveries",
      content: jsonContent(() => z.object({ data: z.array(webhookDeliverySchema()), pagination: paginationSchema() })),
    },
  },
});

const SORT: KeysetSort = { name: "id_desc", direction: "desc", columns: [{ column: webhookDeliveries.id, kind: "bigint" }] };

export const registerListWebhookDeliveries = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const { companyId } = c.get("auth");
    const pos = listPosition(query, c.req.query("page") !== undefined, SORT, {
      companyId,
      filters: { endpoint: id, status: query.status ?? null },
    });
    const d = webhookDeliveries;
    const where = and(eq(d.endpointId, id), eq(d.companyId, companyId), query.status ? eq(d.status, query.status) : undefined);
    const db = c.get("db");
    // One statement from the endpoint row: no row means no such endpoint for this company (404), an
    // endpoint without deliveries gives one row with nulls.
    const pageIds = pos.pageIds(db, d, d.id, where);
    const rows = await db
      .with(pageIds)
      .select({
        total: sql<number>`(select count(*) from ${d} where ${where})`.mapWith(Number),
        delivery: d,
        event: { eventId: webhookEvents.eventId, type: webhookEvents.type },
        sortKey: sortKeySql(SORT),
      })
      .from(webhookEndpoints)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(d, eq(d.id, pageIds.id))
      .leftJoin(webhookEvents, eq(webhookEvents.id, d.eventId))
      .where(ownEndpoint(companyId, id))
      .orderBy(...orderBySql(SORT));
    return c.json(
      underParent.finish(
        pos,
        rows,
        "Webhook endpoint",
        (r) => (r.delivery && r.event ? { delivery: r.delivery, event: r.event } : null),
        (r) => serializeDelivery(r.delivery, r.event),
      ),
      200,
    );
  });
