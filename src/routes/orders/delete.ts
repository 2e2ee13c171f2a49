import { and, eq, exists, inArray, isNull, sql } from "drizzle-orm";
import { syncApplies } from "../../accounting/payload";
import { applyChange } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { accountingOutbox } from "../../db/schema/accounting";
import { invoices, projects } from "../../db/schema/orders";
import { notFound } from "../../http/errors";
import { etagMatchesSql, ifMatchHeader, ifMatchTags, preconditionFailed } from "../../http/etag";
import { createAuthRoute, deletedSchema, idParam, jsonContent, type Router } from "../../http/openapi";
import { orderEvents } from "./events";
import { companySyncSql, defaultInvoiceOf, liveProjects, loadOrderDetail, orderEtag } from "./queries";
import { renderOrderObject } from "./webhook-object";

const route = createAuthRoute({
  method: "delete",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  path: "/orders/{id}",
  operationId: "deleteOrder",
  tags: ["Orders"],
  summary: "Soft-delete an order",
  description:
    'Soft-deletes the project and its invoice atomically (one statement) and answers `{ "deleted": true, "id": <id> }`. ' +
    "Afterwards GET, PATCH and DELETE of the order answer 404 and the list hides it (a repeated DELETE is 404, not 200). " +
    "An accounting `delete` is queued in the same statement when the company has accounting sync enabled, or when the " +
    "order's invoice was synced before (e.g. created with `quickbooks_enabled: true`), so no remote invoice outlives its order.",
  request: { params: idParam("Order (project) id"), headers: ifMatchHeader() },
  errors: [404, 412],
  responses: {
    200: {
      description: "The order was deleted",
      content: jsonContent(() => deletedSchema("OrderDeleted", "The deleted order (project) id", 7)),
    },
  },
});

export const registerDeleteOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const ifMatch = ifMatchTags(c);
    // One statement (atomic, one round trip); the updates lock the rows, and a concurrent DELETE that
    // committed first leaves no live project to match (404).
    return applyChange(c, async (change) => {
      const { db, companyId } = change;
      const now = sql`now()`;
      const invoiceUpdatedAt = sql`(${db.select({ updatedAt: invoices.updatedAt }).from(invoices).where(defaultInvoiceOf(projects.id))})`;
      const project = db.$with("project").as(
        db
          .update(projects)
          .set({ deletedAt: now, updatedAt: now })
          // An order is a live project with its live default invoice.
          .where(
            and(
              liveProjects(companyId),
              eq(projects.id, id),
              exists(db.select({ id: invoices.id }).from(invoices).where(defaultInvoiceOf(projects.id))),
              // If-Match in the same statement: the project row's lock makes a concurrent order write (which
              // bumps the project's updated_at) finish first, and the condition is re-checked against what it left.
              etagMatchesSql(orderEtag(projects.id, projects.updatedAt, invoiceUpdatedAt, projects.clientId), ifMatch),
            ),
          )
          .returning({ id: projects.id }),
      );
      const invoice = db.$with("invoice").as(
        db
          .update(invoices)
          .set({ deletedAt: now, updatedAt: now })
          .where(and(inArray(invoices.projectId, db.select({ id: project.id }).from(project)), isNull(invoices.deletedAt)))
          .returning({ id: invoices.id, isDefault: invoices.isDefault }),
      );
      // No body: the company setting decides, and an invoice synced before is always deleted remotely.
      // (The statement's own outbox row is not visible to `exists`: all of it reads the same snapshot.)
      const sync = syncApplies(undefined, companySyncSql(companyId));
      const syncedBefore = sql`exists (select 1 from ${accountingOutbox} where ${accountingOutbox.invoiceId} = ${invoice.id})`;
      const [row] = await change.write(
        {
          with: [project, invoice],
          accounting: [
            {
              projectId: id,
              invoiceId: invoice.id,
              operation: "delete",
              payload: {},
              from: sql`from ${invoice} where ${invoice.isDefault} and (${sync} or ${syncedBefore})`,
            },
          ],
          events: [eventOf(orderEvents, "order.deleted", { id, from: project })],
        },
        (q) => q.select({ id: project.id }).from(project),
      );
      if (!row) {
        // Nothing was written: a live order whose ETag did not match is 412 with its current ETag.
        const current = ifMatch === undefined ? undefined : await loadOrderDetail(db, companyId, id);
        throw current ? preconditionFailed(current.etag) : notFound("Order");
      }
      // The event's object is the order as the delete left it (the envelope every order event carries).
      change.objects(orderEvents, renderOrderObject);
      return c.json({ deleted: true as const, id }, 200);
    });
  });
