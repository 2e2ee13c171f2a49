import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { approvals } from "../../../db/schema/approvals";
import { projects } from "../../../db/schema/orders";
import { createAuthRoute, idParam, jsonContent, paginationSchema, type Router } from "../../../http/openapi";
import { listPosition, underParent } from "../../../http/pagination";
import { type KeysetSort, orderBySql, sortKeySql } from "../../../platform/keyset";
import { liveProjects } from "../queries";
import { statusFilter } from "./queries";
import { approvalWithStatus } from "./read";
import { approvalSchema, serializeApproval } from "./schema";
import { APPROVAL_STATUSES } from "./status";

const route = createAuthRoute({
  method: "get",
  path: "/orders/{id}/approvals",
  operationId: "listOrderApprovals",
  tags: ["Approvals"],
  summary: "List an order's proof approvals",
  description:
    "The order's approvals, newest first, with their status computed now. `status` keeps one status. " +
    "Follow `pagination.next_cursor` (as `cursor`) for the next page. Another company's order is 404.",
  request: {
    params: idParam("Order (project) id"),
    query: underParent.query(APPROVAL_STATUSES, "Only approvals with this status"),
  },
  errors: [404],
  responses: {
    200: {
      description: "A page of approvals",
      content: jsonContent(() => z.object({ data: z.array(approvalSchema()), pagination: paginationSchema() })),
    },
  },
});

const SORT: KeysetSort = { name: "-id", direction: "desc", columns: [{ column: approvals.id, kind: "int" }] };

export const registerListApprovals = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const query = c.req.valid("query");
    const { companyId } = c.get("auth");
    const pos = listPosition(query, c.req.query("page") !== undefined, SORT, {
      companyId,
      filters: { order: id, status: query.status ?? null },
    });
    const where = and(eq(approvals.companyId, companyId), eq(approvals.projectId, id), statusFilter(query.status && [query.status]));
    const db = c.get("db");
    // One statement: the order (404 without it), the page's ids and rows, and the total.
    const pageIds = pos.pageIds(db, approvals, approvals.id, where);
    const rows = await db
      .with(pageIds)
      .select({
        total: sql<number>`(select count(*) from ${approvals} where ${where})`.mapWith(Number),
        ...approvalWithStatus,
        sortKey: sortKeySql(SORT),
      })
      .from(projects)
      .leftJoin(pageIds, sql`true`)
      .leftJoin(approvals, eq(approvals.id, pageIds.id))
      .where(and(liveProjects(companyId), eq(projects.id, id)))
      .orderBy(...orderBySql(SORT));
    return c.json(
      underParent.finish(
        pos,
        rows,
        "Order",
        (r) => (r.approval ? { approval: r.approval, status: r.status } : null),
        (r) => serializeApproval(r.approval, r.status),
      ),
      200,
    );
  });
