import { and, eq, exists, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { type AccountingUpdate, syncApplies } from "../../accounting/payload";
import { applyChange, type Change } from "../../changes/change";
import { eventOf } from "../../changes/effects";
import { clients, companies, invoices, orderStatuses, projects, taxes } from "../../db/schema";
import { liveClients } from "../../domain/client";
import { invalid, notFound } from "../../http/errors";
import { etagMatches, etagMatchesSql, ifMatchHeader, ifMatchTags, preconditionFailed, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, type Router } from "../../http/openapi";
import type { Db } from "../../platform/db";
import { accountingUpdate } from "./accounting";
import { orderEvents } from "./events";
import { defaultInvoiceOf, invoiceAmountsColumns, liveProjects, orderEtag, unknownReference } from "./queries";
import {
  invoiceColumns,
  OrderEnvelopeSchema,
  type OrderPatch,
  OrderPatchSchema,
  PERCENT_MESSAGE,
  percentOutOfRange,
  projectColumns,
} from "./schema";
import { orderEnvelope } from "./serialize";
import { statusChangedEvent } from "./status-changed";

const route = createAuthRoute({
  method: "patch",
  path: "/orders/{id}",
  operationId: "updateOrder",
  // Its first statement reads; the write awaits the limiter's answer (patchOrder).
  readsFirst: true,
  tags: ["Orders"],
  summary: "Update an order",
  description:
    "Partial update, all or nothing: project fields change the project, invoice fields the default invoice; " +
    "`deadline` also sets the invoice due date and `client_id` changes both. The body must hold at least one field besides " +
    "`quickbooks_enabled`; unknown fields are 400. `client_id`, `status_id` and `tax_id` must name rows of your company " +
    "(a missing, deleted or other company's row is 400 `invalid_request` naming the field; nothing changes). " +
    "`tax_id` 0 or null removes the tax; `status_id` null clears the status. `discount_amount_type` accepts `fixed` and `amount` " +
    "for `fixed_amount`. A percentage discount must stay within 0–100, also against the stored type when only one of the two is sent. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting) and an accounting-relevant field was sent " +
    "(description, deadline, client_id, client_notes, discount fields, tax_id, tax_exempt), a sparse accounting `update` is queued with it (all or nothing).",
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: OrderPatchSchema } } },
    headers: ifMatchHeader,
  },
  errors: [404, 412],
  responses: {
    200: withEtag({
      description: "The updated project and invoice (with totals); the ETag is the order's (as GET /orders/{id} answers it)",
      content: { "application/json": { schema: OrderEnvelopeSchema } },
    }),
  },
});

/**
 * The live order with what validating this PATCH needs (the company's sync default, whether the referenced
 * client / status / tax exist, the tax rate after the change) and the row versions (xmin) the write is
 * conditional on. One query; `lock` also locks both rows (the transactional fallback).
 */
async function readOrder(db: Db, companyId: number, id: number, body: OrderPatch, lock: boolean) {
  const storedTax = alias(taxes, "stored_tax");
  const query = db
    .select({
      project: projects,
      invoice: invoices,
      companySync: companies.accountingSyncEnabled,
      versions: { project: sql<string>`${projects}.xmin::text`, invoice: sql<string>`${invoices}.xmin::text` },
      etag: orderEtag(projects.id, projects.updatedAt, invoices.updatedAt, projects.clientId),
      storedTaxRate: storedTax.rate,
      clientFound:
        body.client_id === undefined
          ? sql<boolean>`true`
          : exists(
              db
                .select({ id: clients.id })
                .from(clients)
                .where(and(liveClients(companyId), eq(clients.id, body.client_id))),
            ),
      statusFound: body.status_id
        ? exists(
            db
              .select({ id: orderStatuses.id })
              .from(orderStatuses)
              .where(and(eq(orderStatuses.companyId, companyId), eq(orderStatuses.id, body.status_id), isNull(orderStatuses.deletedAt))),
          )
        : sql<boolean>`true`,
      // null: no such tax row of the company (rates are never null).
      sentTaxRate: body.tax_id
        ? sql<string | null>`(${db
            .select({ rate: taxes.rate })
            .from(taxes)
            .where(and(eq(taxes.companyId, companyId), eq(taxes.id, body.tax_id), isNull(taxes.deletedAt)))})`
        : sql<null>`null`,
    })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .innerJoin(companies, eq(companies.id, projects.companyId))
    .leftJoin(storedTax, eq(storedTax.id, invoices.taxId))
    .where(and(liveProjects(companyId), eq(projects.id, id)));
  const [row] = await (lock ? query.for("update", { of: [projects, invoices] }) : query);
  return row;
}
type ReadOrder = NonNullable<Awaited<ReturnType<typeof readOrder>>>;

/**
 * The live status and tax the body names, share-locked until commit (a status delete, a tax's rate change
 * or delete then waits for this write, and sees its order); the tax only while its rate is still `rate`
 * (when given), so a rate changed since the read makes the write miss and run again. True without either.
 */
function referencesHeld(companyId: number, body: OrderPatch, rate: string | null) {
  const held = (table: typeof orderStatuses | typeof taxes, id: number, extra?: SQL) =>
    sql`exists (select 1 from ${table} where ${and(eq(table.id, id), eq(table.companyId, companyId), isNull(table.deletedAt), extra)} for share)`;
  return (
    and(
      body.status_id ? held(orderStatuses, body.status_id) : undefined,
      body.tax_id ? held(taxes, body.tax_id, rate === null ? undefined : eq(taxes.rate, rate)) : undefined,
    ) ?? sql`true`
  );
}

/**
 * The write as ONE statement (atomic): lock both rows only if they are still the versions that were read
 * and validated, update what the body changes, write the outbox row and the webhook event; returns the rows after the change
 * with the invoice's line and payment amounts. Undefined when a row changed since the read (or the order
 * went away): then nothing was written.
 */
async function writeOrder(
  change: Change,
  order: ReadOrder,
  body: OrderPatch,
  changes: AccountingUpdate | undefined,
  ifMatch: "*" | string[] | undefined,
) {
  const { db } = change;
  const locked = db.$with("locked").as(
    db
      .select({
        projectId: sql<number>`${projects.id}`.as("project_id"),
        invoiceId: sql<number>`${invoices.id}`.as("invoice_id"),
        statusId: sql<number | null>`${projects.statusId}`.as("previous_status_id"),
      })
      .from(projects)
      .innerJoin(invoices, eq(invoices.id, order.invoice.id))
      // A row lock waits for a concurrent writer, then re-checks this condition against the row it committed.
      .where(
        and(
          eq(projects.id, order.project.id),
          sql`${projects}.xmin = ${order.versions.project}::xid`,
          sql`${invoices}.xmin = ${order.versions.invoice}::xid`,
          // The status and tax the body names, still as read, held until commit (checked before the rows above are locked).
          referencesHeld(change.companyId, body, order.sentTaxRate),
          // With If-Match, the client the ETag covers must be unchanged too (the rows above are pinned by xmin).
          ifMatch === undefined
            ? undefined
            : etagMatchesSql(orderEtag(projects.id, projects.updatedAt, invoices.updatedAt, projects.clientId), [order.etag]),
        ),
      )
      .for("update", { of: [projects, invoices] }),
  );
  const lockedProject = inArray(projects.id, db.select({ id: locked.projectId }).from(locked));
  const lockedInvoice = inArray(invoices.id, db.select({ id: locked.invoiceId }).from(locked));
  const projectChanges = projectColumns(body);
  const invoiceChanges = invoiceColumns(body);
  // The project's updated_at is the order's: every PATCH bumps it, so the ETag, a concurrent DELETE's
  // If-Match re-check and the list's incremental sync (updated_since) see the change; an invoice the
  // body does not change is only read.
  const project = db.$with("project").as(
    db
      .update(projects)
      .set({ ...projectChanges, updatedAt: sql`now()` })
      .where(lockedProject)
      .returning(),
  );
  const invoice = db.$with("invoice").as(
    Object.keys(invoiceChanges).length
      ? db
          .update(invoices)
          .set({ ...invoiceChanges, updatedAt: sql`now()` })
          .where(lockedInvoice)
          .returning()
      : db.select().from(invoices).where(lockedInvoice),
  );
  const [row] = await change.write(
    {
      with: [locked, project, invoice],
      accounting: changes
        ? [{ projectId: order.project.id, invoiceId: order.invoice.id, operation: "update", payload: { changes }, from: locked }]
        : [],
      events: [
        eventOf(orderEvents, "order.updated", { id: order.project.id, from: project }),
        ...(body.status_id === undefined
          ? []
          : [
              statusChangedEvent(
                { cte: project, projectId: project.id, statusId: project.statusId },
                { cte: locked, projectId: locked.projectId, statusId: locked.statusId },
              ),
            ]),
      ],
    },
    (q) =>
      q
        .select({
          project: project._.selectedFields,
          invoice: invoice._.selectedFields,
          ...invoiceAmountsColumns(order.invoice.id),
          etag: orderEtag(project.id, project.updatedAt, invoice.updatedAt, project.clientId),
        })
        .from(project)
        .innerJoin(invoice, sql`true`),
  );
  return row;
}

/**
 * Read, validate, write: two statements. Undefined when the order changed between them (only possible
 * when the change is not locked); the change then repeats it under row locks, inside a transaction.
 */
async function patchOrder(change: Change, id: number, body: OrderPatch, ifMatch: "*" | string[] | undefined) {
  const { db, companyId, locked: lock } = change;
  // Locked, the status and tax the body names are held before the order's rows, the order every writer
  // takes them in (a tax or status write holds its row, then the orders'), so the attempt cannot deadlock.
  if (lock && (body.status_id || body.tax_id)) await db.execute(sql`select ${referencesHeld(companyId, body, null)}`);
  const order = await readOrder(db, companyId, id, body, lock);
  if (!order) throw notFound("Order");
  if (!etagMatches(order.etag, ifMatch)) throw preconditionFailed(order.etag);
  const details = [
    ...(order.clientFound ? [] : [unknownReference("client_id", "client")]),
    ...(order.statusFound ? [] : [unknownReference("status_id", "order status")]),
    ...(body.tax_id && order.sentTaxRate === null ? [unknownReference("tax_id", "tax")] : []),
  ];
  // Checked against the stored values when the body sends only one of amount and type.
  const discountSent = body.discount_amount !== undefined || body.discount_amount_type !== undefined;
  if (
    discountSent &&
    percentOutOfRange(body.discount_amount ?? order.invoice.discountAmount, body.discount_amount_type ?? order.invoice.discountAmountType)
  ) {
    details.push({ field: body.discount_amount !== undefined ? "discount_amount" : "discount_amount_type", message: PERCENT_MESSAGE });
  }
  if (details.length) throw invalid("Invalid request body", details);

  const taxRate = body.tax_id === undefined ? order.storedTaxRate : order.sentTaxRate;
  // The outbox row is part of the write, so its payload comes from the invoice as the write will leave it:
  // the version-checked row with the body's (canonical) values applied.
  const changes = syncApplies(body.quickbooks_enabled, order.companySync)
    ? accountingUpdate(body, { ...order.invoice, ...invoiceColumns(body) }, taxRate)
    : undefined;
  // The read ran while the rate limiter answered (readsFirst); the change's write waits for its answer.
  const written = await writeOrder(change, order, body, changes, ifMatch);
  if (!written) {
    // Under the row locks only the client (part of the ETag, not locked) can have changed since the read.
    if (lock && ifMatch !== undefined) throw preconditionFailed((await readOrder(db, companyId, id, body, false))?.etag ?? order.etag);
    return undefined;
  }
  return { ...written, taxRate };
}

export const registerPatchOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const ifMatch = ifMatchTags(c);
    // Optimistic first (no transaction: two round trips over HTTP). If the order changed between read and
    // write, redo it in an interactive transaction that locks the rows as it reads them, so that attempt's
    // write cannot miss. That one needs a session: the checks between read and write run here, in code.
    return applyChange(c, async (change) => {
      const result = await change.readThenWrite((attempt) => patchOrder(attempt, id, body, ifMatch), {
        log: "order changed between read and write; patching again under row locks",
        fields: { order_id: id },
        failed: "order changed under its row lock",
      });
      const order = orderEnvelope(result);
      change.objects(() => JSON.stringify(order));
      c.header("ETag", result.etag);
      return c.json(order, 200);
    });
  });
