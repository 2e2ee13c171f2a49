import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import { alias, type PgColumn } from "drizzle-orm/pg-core";
import { type AccountingUpdate, syncApplies } from "../../accounting/payload";
import { applyChange, type Change } from "../../changes/change";
import { changedFields, eventOf } from "../../changes/effects";
import { clients } from "../../db/schema/clients";
import { companies } from "../../db/schema/companies";
import { decorations } from "../../db/schema/decorations";
import { artworks, invoiceItems, invoices, orderStatuses, payments, projects, taxes } from "../../db/schema/orders";
import { liveClients } from "../../domain/client";
import { externalIdTaken, METADATA_MAX_KEYS, mergedMetadata, metadataChange, sameRow, tooManyMetadataKeys } from "../../domain/external";
import { type ApiError, invalid, notFound } from "../../http/errors";
import { etagMatches, etagMatchesSql, ifMatchHeader, ifMatchTags, preconditionFailed, withEtag } from "../../http/etag";
import { createAuthRoute, idParam, jsonContent, type Router } from "../../http/openapi";
import { type Db, isUniqueViolation } from "../../platform/db";
import { jsonParam } from "../../platform/sql-kit";
import { accountingUpdate } from "./accounting";
import { orderEvents } from "./events";
import { defaultInvoiceOf, invoiceAmountsColumns, liveProjects, orderEtag, unknownReference } from "./queries";
import {
  invoiceColumns,
  type OrderPatch,
  orderEnvelopeSchema,
  orderPatchSchema,
  PERCENT_MESSAGE,
  percentOutOfRange,
  projectColumns,
} from "./schema";
import { type OrderEnvelope, orderEnvelope } from "./serialize";
import { statusChangedEvent } from "./status-changed";
import { contentsCtes, newContentsRows } from "./write";
import type { OrderContentsInput } from "./write-schema";

const route = createAuthRoute({
  method: "patch",
  // Queues the change of the order's invoice for the company's accounting (QuickBooks) when its sync is on.
  reaches: ["accounting"],
  path: "/orders/{id}",
  operationId: "updateOrder",
  // Its first statement reads; the write awaits the limiter's answer (updateOrders).
  readsFirst: true,
  tags: ["Orders"],
  summary: "Update an order",
  description:
    "Partial update, all or nothing: project fields change the project, invoice fields the default invoice; " +
    "`deadline` also sets the invoice due date and `client_id` changes both. The body must hold at least one field besides " +
    "`quickbooks_enabled`; unknown fields are 400. `client_id`, `status_id` and `tax_id` must name rows of your company " +
    "(a missing, deleted or other company's row is 400 `invalid_request` naming the field; nothing changes). " +
    "An `external_id` another live order has is 409 `conflict` naming that order (nothing changes). " +
    "`tax_id` 0 or null removes the tax; `status_id` null clears the status. `discount_amount_type` accepts `fixed` and `amount` " +
    "for `fixed_amount`. A percentage discount must stay within 0–100, also against the stored type when only one of the two is sent. " +
    "When accounting sync applies (`quickbooks_enabled` when sent, else the company setting) and an accounting-relevant field was sent " +
    "(description, deadline, client_id, client_notes, discount fields, tax_id, tax_exempt), a sparse accounting `update` is queued with it (all or nothing).",
  request: {
    params: idParam("Order (project) id"),
    body: { required: true, content: { "application/json": { schema: orderPatchSchema() } } },
    headers: ifMatchHeader(),
  },
  errors: [404, 409, 412],
  responses: {
    200: withEtag({
      description: "The updated project and invoice (with totals); the ETag is the order's (as GET /orders/{id} answers it)",
      content: jsonContent(orderEnvelopeSchema),
    }),
  },
});

/** One order update: the order (by id or external id), the PATCH fields, the contents an upsert replaces, If-Match. */
export interface OrderUpdateWrite {
  address: { id: number } | { externalId: string };
  body: OrderPatch;
  /** Each kind given replaces the order's live ones of that kind (PUT /orders/by-external-id). */
  contents?: OrderContentsInput;
  ifMatch?: "*" | string[];
}
/** An update's outcome: what PATCH answers (the envelope, the order's ETag), or its error. */
export type OrderUpdateOutcome = { order: OrderEnvelope; etag: string; projectId: number } | { error: ApiError };

const ids = (values: (number | null | undefined)[]) =>
  `{${[...new Set(values.filter((v): v is number => typeof v === "number" && v > 0))].join(",")}}`;
/** Text values as a SQL text[] (through JSON: any character travels as it is). */
const texts = (values: (string | null | undefined)[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify([...new Set(values.filter((v): v is string => typeof v === "string"))])}::jsonb))`;

/**
 * The live orders the updates address (by id or external id), each with what validating its update
 * needs (the company's sync default, the tax rate stored) and the row versions (xmin) its write is
 * conditional on; and, for all of them at once, which of the referenced clients, statuses and taxes (with
 * rates) are the company's, and which live orders hold the external ids the updates give. One query;
 * `lock` also locks the orders' rows (the transactional fallback).
 */
async function readOrders(db: Db, companyId: number, writes: OrderUpdateWrite[], lock: boolean) {
  const storedTax = alias(taxes, "stored_tax");
  const bodies = writes.map((w) => w.body);
  const byId = ids(writes.map((w) => ("id" in w.address ? w.address.id : null)));
  const byKey = texts(writes.map((w) => ("externalId" in w.address ? w.address.externalId : null)));
  const query = db
    .select({
      project: projects,
      invoice: invoices,
      companySync: companies.accountingSyncEnabled,
      versions: { project: sql<string>`${projects}.xmin::text`, invoice: sql<string>`${invoices}.xmin::text` },
      etag: orderEtag(projects.id, projects.updatedAt, invoices.updatedAt, projects.clientId),
      storedTaxRate: storedTax.rate,
      // The same for every row: what the bodies refer to.
      clients: sql<number[]>`(select coalesce(array_agg(${clients.id}), '{}') from ${clients}
        where ${liveClients(companyId)} and ${clients.id} = any(${ids(bodies.map((b) => b.client_id))}::int[]))`,
      statuses: sql<number[]>`(select coalesce(array_agg(${orderStatuses.id}), '{}') from ${orderStatuses}
        where ${orderStatuses.companyId} = ${companyId} and ${orderStatuses.deletedAt} is null
          and ${orderStatuses.id} = any(${ids(bodies.map((b) => b.status_id))}::int[]))`,
      // Rates are never null: a tax missing here is not the company's.
      taxRates: sql<Record<string, string>>`(select coalesce(json_object_agg(${taxes.id}, ${taxes.rate}::text), '{}') from ${taxes}
        where ${taxes.companyId} = ${companyId} and ${taxes.deletedAt} is null and ${taxes.id} = any(${ids(bodies.map((b) => b.tax_id))}::int[]))`,
      externalIds: sql<Record<string, number>>`(select coalesce(json_object_agg(o.external_id, o.id), '{}') from ${projects} o
        where o.company_id = ${companyId} and o.deleted_at is null and o.external_id = any(${texts(bodies.map((b) => b.external_id))}))`,
    })
    .from(projects)
    .innerJoin(invoices, defaultInvoiceOf(projects.id))
    .innerJoin(companies, eq(companies.id, projects.companyId))
    .leftJoin(storedTax, eq(storedTax.id, invoices.taxId))
    // The external ids resolved to ids first: an OR of the two conditions can make PostgreSQL walk the
    // company's external-id index (every order of a migrated shop has one); ids alone are one pkey lookup.
    .where(
      and(
        liveProjects(companyId),
        sql`${projects.id} = any(${byId}::int[] || array(select o.id from ${projects} o
          where o.company_id = ${companyId} and o.deleted_at is null and o.external_id = any(${byKey})))`,
      ),
    )
    // Locks in id order, so two batches locking the same orders wait for each other rather than deadlock.
    .orderBy(projects.id);
  return lock ? query.for("update", { of: [projects, invoices] }) : query;
}
type ReadOrder = Awaited<ReturnType<typeof readOrders>>[number];

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

/** The rate of the tax the body names, as read (null: none named, or not the company's). */
const sentTaxRate = (order: ReadOrder, body: OrderPatch) => (body.tax_id ? (order.taxRates[body.tax_id] ?? null) : null);

/**
 * The order's fields an `order.updated` event's previous_attributes compare, under the PATCH body's names:
 * the project's and its invoice's (`deadline` and `client_id` are the project's), money as text.
 */
const PREVIOUS: readonly [wire: string, column: PgColumn, cte: "project" | "invoice"][] = [
  ["title", projects.title, "project"],
  ["description", projects.description, "project"],
  ["start_date", projects.startDate, "project"],
  ["deadline", projects.deadline, "project"],
  ["client_id", projects.clientId, "project"],
  ["status_id", projects.statusId, "project"],
  ["external_id", projects.externalId, "project"],
  ["metadata", projects.metadata, "project"],
  ["client_notes", invoices.clientNotes, "invoice"],
  ["tax_id", invoices.taxId, "invoice"],
  ["tax_exempt", invoices.taxExempt, "invoice"],
  ["tax_exempt_reason", invoices.taxExemptReason, "invoice"],
  ["discount_amount", invoices.discountAmount, "invoice"],
  ["discount_amount_type", invoices.discountAmountType, "invoice"],
  ["discount_type", invoices.discountType, "invoice"],
];
const wireValue = (value: SQL, column: PgColumn) => (column.getSQLType().startsWith("numeric") ? sql`${value}::text` : value);
/** Each PREVIOUS field as the locked rows hold it (a lock answers the rows' latest versions): `before_<field>` columns of `locked`. */
const lockedBefore = Object.fromEntries(
  PREVIOUS.map(([wire, column]) => [`before_${wire}`, sql`${wireValue(sql`${column}`, column)}`.as(`before_${wire}`)]),
);
/** previous_attributes of the order's update: each field whose value the statement changed, with the value it had. */
const orderPrevious = changedFields(
  Object.fromEntries(
    PREVIOUS.map(([wire, column, cte]) => [
      wire,
      [sql.raw(`locked.before_${wire}`), wireValue(sql`${sql.identifier(cte)}.${sql.identifier(column.name)}`, column)],
    ]),
  ),
);

/**
 * The write as ONE statement (atomic): lock both rows only if they are still the versions that were read
 * and validated, update what the body changes, replace the contents given, write the outbox row and the
 * webhook event; returns the rows after the change with the invoice's line and payment amounts. Undefined
 * when a row changed since the read (or the order went away): then nothing was written.
 */
async function writeOrder(
  change: Change,
  order: ReadOrder,
  write: OrderUpdateWrite,
  changes: AccountingUpdate | undefined,
  metadata: Record<string, string> | undefined,
) {
  const { db } = change;
  const { body, ifMatch, contents } = write;
  const locked = db.$with("locked").as(
    db
      .select({
        projectId: sql<number>`${projects.id}`.as("project_id"),
        invoiceId: sql<number>`${invoices.id}`.as("invoice_id"),
        statusId: sql<number | null>`${projects.statusId}`.as("previous_status_id"),
        ...lockedBefore,
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
          referencesHeld(change.companyId, body, sentTaxRate(order, body)),
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
  const projectChanges = { ...projectColumns(body), ...(metadata === undefined ? {} : { metadata }) };
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
    Object.keys(invoiceChanges).length || contents
      ? db
          .update(invoices)
          .set({ ...invoiceChanges, updatedAt: sql`now()` })
          .where(lockedInvoice)
          .returning()
      : db.select().from(invoices).where(lockedInvoice),
  );
  const replaced = contents ? replaceContents(change, order, contents) : [];
  const [row] = await change.write(
    {
      with: [locked, project, invoice, ...replaced],
      accounting: changes
        ? [{ projectId: order.project.id, invoiceId: order.invoice.id, operation: "update", payload: { changes }, from: locked }]
        : [],
      events: [
        eventOf(orderEvents, "order.updated", {
          id: order.project.id,
          from: sql`from ${project} cross join ${invoice} cross join ${locked}`,
          previous: orderPrevious,
        }),
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
  if (!row || !contents) return row;
  // The statement's own inserts are not in its snapshot: the replaced kinds count what replaced them.
  const { items, payments: paid } = newContentsRows(contents);
  return { ...row, lines: contents.items ? items : row.lines, payments: contents.payments ? paid : row.payments };
}

/** CTEs that replace the order's live contents of each kind `contents` gives: the old ones soft-deleted, the new ones inserted (under the lock). */
function replaceContents(change: Change, order: ReadOrder, contents: OrderContentsInput) {
  const { db, companyId } = change;
  const gone = (name: string, table: typeof invoiceItems | typeof payments | typeof artworks | typeof decorations, owner: SQL) =>
    db.$with(name).as(
      db
        .update(table)
        .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(owner, isNull(table.deletedAt), sql`exists (select 1 from locked)`))
        .returning({ id: table.id }),
    );
  const oldItems = gone("old_items", invoiceItems, eq(invoiceItems.invoiceId, order.invoice.id));
  const removed = [
    // Replaced items take their decorations with them.
    ...(contents.items
      ? [oldItems, gone("old_decorations", decorations, sql`${decorations.invoiceItemId} in (select id from ${oldItems})`)]
      : []),
    ...(contents.payments ? [gone("old_payments", payments, eq(payments.invoiceId, order.invoice.id))] : []),
    ...(contents.artworks ? [gone("old_artworks", artworks, eq(artworks.projectId, order.project.id))] : []),
  ];
  const added = contentsCtes(db, companyId, {
    from: sql`from locked`,
    invoiceId: "locked.invoice_id",
    projectId: "locked.project_id",
    at: "now()",
    rows: jsonParam(newContentsRows(contents)),
  });
  return [...removed, ...added];
}

/** Why an update cannot be written (404, 412, 409, 400), from what `readOrders` found; undefined when it can. */
function refusal(write: OrderUpdateWrite, order: ReadOrder | undefined, metadata: Record<string, string> | undefined) {
  const { body, ifMatch } = write;
  if (!order) return notFound("Order");
  if (!etagMatches(order.etag, ifMatch)) return preconditionFailed(order.etag);
  const holder = body.external_id ? order.externalIds[body.external_id] : undefined;
  if (holder !== undefined && holder !== order.project.id) return externalIdTaken("order", holder);
  const details = [
    ...(body.client_id === undefined || order.clients.includes(body.client_id) ? [] : [unknownReference("client_id", "client")]),
    ...(!body.status_id || order.statuses.includes(body.status_id) ? [] : [unknownReference("status_id", "order status")]),
    ...(body.tax_id && order.taxRates[body.tax_id] === undefined ? [unknownReference("tax_id", "tax")] : []),
  ];
  // Checked against the stored values when the body sends only one of amount and type.
  const discountSent = body.discount_amount !== undefined || body.discount_amount_type !== undefined;
  if (
    discountSent &&
    percentOutOfRange(body.discount_amount ?? order.invoice.discountAmount, body.discount_amount_type ?? order.invoice.discountAmountType)
  ) {
    details.push({ field: body.discount_amount !== undefined ? "discount_amount" : "discount_amount_type", message: PERCENT_MESSAGE });
  }
  if (metadata && Object.keys(metadata).length > METADATA_MAX_KEYS) details.push(tooManyMetadataKeys(Object.keys(metadata).length));
  return details.length ? invalid("Invalid request body", details) : undefined;
}

/** The live order of the company that has this external id (null: none now). */
async function externalIdHolder(db: Db, companyId: number, externalId: string): Promise<number | null> {
  const [row] = await db
    .select({ id: projects.id })
    .from(projects)
    .where(and(liveProjects(companyId), eq(projects.externalId, externalId)));
  return row?.id ?? null;
}

/** The order an update addresses among those read. */
const addressed = (rows: ReadOrder[], { address }: OrderUpdateWrite) =>
  rows.find((r) => ("id" in address ? r.project.id === address.id : r.project.externalId === address.externalId));

/**
 * Read, validate, write: one read for all of `writes`, then one statement per order (run at once over
 * HTTP; one after another in a transaction). An outcome per write, or undefined for a write whose order
 * changed between the read and its write (only possible when the change is not locked): the caller runs
 * those again under row locks.
 */
async function updateOnce(change: Change, writes: OrderUpdateWrite[]): Promise<(OrderUpdateOutcome | undefined)[]> {
  const { db, companyId, locked: lock } = change;
  // Locked, the statuses and taxes the bodies name are held before the orders' rows, the order every writer
  // takes them in (a tax or status write holds its row, then the orders'), so the attempt cannot deadlock.
  const referencing = writes.filter((w) => w.body.status_id || w.body.tax_id);
  if (lock && referencing.length) {
    await db.execute(
      sql`select ${sql.join(
        referencing.map((w) => referencesHeld(companyId, w.body, null)),
        sql`, `,
      )}`,
    );
  }
  const rows = await readOrders(db, companyId, writes, lock);
  // Two writes of one batch that found the same order (by id and by external id): the later one is refused.
  const first = new Map<number, number>();
  const sameOrder = writes.map((write, i) => {
    const id = addressed(rows, write)?.project.id;
    if (id === undefined) return undefined;
    if (!first.has(id)) first.set(id, i);
    return first.get(id) === i ? undefined : first.get(id);
  });
  const one = async (write: OrderUpdateWrite, i: number): Promise<OrderUpdateOutcome | undefined> => {
    if (sameOrder[i] !== undefined) return { error: sameRow(sameOrder[i]!, "order") };
    const order = addressed(rows, write);
    const metadataSent = metadataChange(write.body.metadata, false);
    const metadata = order && metadataSent ? mergedMetadata(order.project.metadata, metadataSent) : undefined;
    const refused = refusal(write, order, metadata);
    if (refused) return { error: refused };
    const { body } = write;
    const read = order!;
    const taxRate = body.tax_id === undefined ? read.storedTaxRate : sentTaxRate(read, body);
    // The outbox row is part of the write, so its payload comes from the invoice as the write will leave it:
    // the version-checked row with the body's (canonical) values applied. Replaced items resend the lines.
    const sync = syncApplies(body.quickbooks_enabled, read.companySync);
    const fields = sync ? accountingUpdate(body, { ...read.invoice, ...invoiceColumns(body) }, taxRate) : undefined;
    const changes = sync && write.contents?.items ? { ...fields, lines: true as const } : fields;
    // The read ran while the rate limiter answered (readsFirst); the change's write waits for its answer.
    let written: Awaited<ReturnType<typeof writeOrder>>;
    const run = () => writeOrder(change, read, write, changes, metadata);
    try {
      // Only a write that sets an external id can lose it to a concurrent one (the unique index refuses);
      // in a transaction that write is undoable, so the refusal is this item's answer, not the request's.
      written = await (body.external_id ? change.undoable(run) : run());
    } catch (error) {
      if (!isUniqueViolation(error, "projects_company_external_id_uq")) throw error;
      // The external id was taken by a write that committed after the read. Over HTTP (nothing written) the
      // locked attempt reads again and answers; in a transaction (rolled back to before this write) the
      // order that has it now is this write's 409.
      if (!lock) return undefined;
      return { error: externalIdTaken("order", await externalIdHolder(db, companyId, body.external_id!)) };
    }
    if (!written) {
      // Under the row locks only the client (part of the ETag, not locked) can have changed since the read.
      if (lock && write.ifMatch !== undefined) {
        const [now] = await readOrders(db, companyId, [write], false);
        throw preconditionFailed(now?.etag ?? read.etag);
      }
      return undefined;
    }
    return { order: orderEnvelope({ ...written, taxRate }), etag: written.etag, projectId: read.project.id };
  };
  if (lock) {
    const out: (OrderUpdateOutcome | undefined)[] = [];
    for (const [i, write] of writes.entries()) out.push(await one(write, i));
    return out;
  }
  return Promise.all(writes.map(one));
}

/**
 * Updates orders (PATCH /orders/{id}, an upsert that found its order, the batch's updates): optimistic
 * first (no transaction: one read and a write per order over HTTP). Writes whose order changed between
 * read and write run again in an interactive transaction that locks the rows as it reads them, so that
 * attempt's writes cannot miss. Each `order.updated` event carries what its update answers.
 */
export async function updateOrders(change: Change, writes: OrderUpdateWrite[]): Promise<OrderUpdateOutcome[]> {
  if (!writes.length) return [];
  const outcomes = await updateOnce(change, writes);
  const missed = outcomes.flatMap((outcome, i) => (outcome === undefined ? [i] : []));
  if (missed.length) {
    change.log("order changed between read and write; writing again under row locks", {
      order_ids: missed.map((i) => ("id" in writes[i].address ? writes[i].address.id : writes[i].address.externalId)),
    });
    const again = await change.inLockedTransaction((locked) =>
      updateOnce(
        locked,
        missed.map((i) => writes[i]),
      ),
    );
    missed.forEach((i, k) => {
      if (again[k] === undefined) throw new Error("order changed under its row lock");
      outcomes[i] = again[k];
    });
  }
  const done = outcomes as OrderUpdateOutcome[];
  const objects = new Map(done.flatMap((o) => ("order" in o ? [[String(o.projectId), JSON.stringify(o.order)]] : [])));
  // `order.updated` and `order.status_changed` both carry the order as the update answers it.
  change.objects(orderEvents, (_db, event) =>
    event.type === "order.updated" || event.type === "order.status_changed" ? objects.get(event.resourceId) : undefined,
  );
  return done;
}

export const registerPatchOrder = (api: Router) =>
  api.openapi(route, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const ifMatch = ifMatchTags(c);
    // Two statements (read, then a write conditional on what was read), redone under row locks if the
    // order changed in between (updateOrders, shared with the upsert and the batch).
    return applyChange(c, async (change) => {
      const [outcome] = await updateOrders(change, [{ address: { id }, body, ifMatch }]);
      if ("error" in outcome) throw outcome.error;
      c.header("ETag", outcome.etag);
      return c.json(outcome.order, 200);
    });
  });
