import { z } from "@hono/zod-openapi";
import { and, inArray } from "drizzle-orm";
import { artworks, clients, invoiceItems, invoices, orderStatuses, payments, projects, taxes } from "../../../src/db/schema";
import { liveClients } from "../../../src/domain/client";
import { isoDate, isoDateTime } from "../../../src/platform/dates";
import {
  ArtworkFieldsSchema,
  ItemFieldsSchema,
  MAX_CONTENTS,
  newItemQuantity,
  PaymentFieldsSchema,
  quantityMatchesSizes,
} from "../../../src/routes/orders/contents/schema";
import {
  dbId,
  importedDiscountInRange,
  invoiceColumns,
  invoiceFields,
  OrderCreateSchema,
  PERCENT_MESSAGE,
  startDate,
} from "../../../src/routes/orders/schema";
import { liveStatuses } from "../../../src/routes/statuses/queries";
import { liveTaxes } from "../../../src/routes/taxes/queries";
import { insertStatuses, insertTaxes, StatusCreateSchema, TaxCreateSchema } from "../settings";
import { type ImportContext, ImportError, parseRecord, refSchema, remember, resolveRef, type SectionImporter } from "./kit";

// Same field rules as the API, plus refs and nested records.
const refOrId = { ref: refSchema.optional(), id: dbId().optional() };
const OrderImportSchema = z
  .strictObject({
    ref: refSchema,
    client_ref: refOrId.ref,
    client_id: refOrId.id,
    title: OrderCreateSchema.shape.title,
    description: OrderCreateSchema.shape.description,
    start_date: startDate,
    deadline: isoDate().nullable().optional(),
    status_ref: refOrId.ref,
    status_id: refOrId.id,
    created_at: isoDateTime().optional(),
    invoice: z
      .strictObject({ ...invoiceFields, due_date: isoDate().nullable().optional(), tax_ref: refOrId.ref, tax_id: refOrId.id })
      .refine(importedDiscountInRange, { message: PERCENT_MESSAGE, path: ["discount_amount"] })
      .optional(),
    items: z
      .array(ItemFieldsSchema.extend({ ref: refSchema }).superRefine(quantityMatchesSizes))
      .max(MAX_CONTENTS)
      .optional(),
    payments: z
      .array(PaymentFieldsSchema.extend({ ref: refSchema }))
      .max(MAX_CONTENTS)
      .optional(),
    artworks: z
      .array(ArtworkFieldsSchema.extend({ ref: refSchema }))
      .max(MAX_CONTENTS)
      .optional(),
  })
  .refine((o) => (o.client_ref === undefined) !== (o.client_id === undefined), {
    message: "Give exactly one of client_ref and client_id",
    path: ["client_ref"],
  })
  .refine((o) => o.status_ref === undefined || o.status_id === undefined, {
    message: "Give at most one of status_ref and status_id",
    path: ["status_ref"],
  })
  .refine((o) => o.invoice?.tax_ref === undefined || o.invoice?.tax_id === undefined, {
    message: "Give at most one of tax_ref and tax_id",
    path: ["invoice", "tax_ref"],
  });

/** `order_statuses: [{ ref, name, position? }]` */
export const importOrderStatuses: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(StatusCreateSchema.extend({ ref: refSchema }), r, `order_statuses[${i}]`));
  const ids = await insertStatuses(ctx.tx, ctx.companyId, parsed);
  parsed.forEach((p, i) => {
    remember(ctx, p.ref, ids[i]);
  });
};

/** `taxes: [{ ref, name, rate }]` (rate in percent) */
export const importTaxes: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(TaxCreateSchema.extend({ ref: refSchema }), r, `taxes[${i}]`));
  const ids = await insertTaxes(ctx.tx, ctx.companyId, parsed);
  parsed.forEach((p, i) => {
    remember(ctx, p.ref, ids[i]);
  });
};

/**
 * `orders: [{ ref, client_ref | client_id, title, description?, start_date?, deadline?, status_ref | status_id?, created_at?,
 *   invoice?: { due_date?, client_notes?, tax_ref | tax_id?, tax_exempt?, tax_exempt_reason?, discount_amount?, discount_amount_type?, discount_type? },
 *   items?: [{ ref, title, description?, quantity?, unit_price, sizes? }], payments?: [{ ref, amount, paid_date?, method?, reference? }],
 *   artworks?: [{ ref, print_method?, placements?, colors?, preview_url?, status? }] }]`
 * Each order gets its default invoice (client tax exemption unless the invoice says otherwise). An item's quantity defaults to
 * the sum of its sizes, else 1 (when both are given they must agree). An artwork's status defaults to `draft`; an approved
 * one is approved as of the order's creation. No accounting outbox rows: an import loads history, it is not a change to sync.
 * A few statements for the whole section, never one per record.
 */
export const importOrders: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(OrderImportSchema, r, `orders[${i}]`));
  if (!parsed.length) return;
  const where = (i: number, field: string) => `orders[${i}].${field}`;
  const resolved = parsed.map((o, i) => ({
    clientId: resolveRef(ctx, o.client_ref, o.client_id, where(i, o.client_ref ? "client_ref" : "client_id")),
    statusId: o.status_ref || o.status_id ? resolveRef(ctx, o.status_ref, o.status_id, where(i, "status_ref")) : null,
    taxId:
      o.invoice?.tax_ref || o.invoice?.tax_id ? resolveRef(ctx, o.invoice.tax_ref, o.invoice.tax_id, where(i, "invoice.tax_ref")) : null,
  }));
  const clientById = await checkReferences(ctx, resolved);

  const projectRows = await ctx.tx
    .insert(projects)
    .values(
      parsed.map((o, i) => {
        const at = o.created_at ? new Date(o.created_at) : undefined;
        return {
          companyId: ctx.companyId,
          clientId: resolved[i].clientId,
          statusId: resolved[i].statusId,
          title: o.title,
          description: o.description ?? null,
          startDate: o.start_date ?? null,
          deadline: o.deadline ?? null,
          createdAt: at,
          updatedAt: at,
        };
      }),
    )
    .returning({ id: projects.id, createdAt: projects.createdAt });
  const invoiceRows = await ctx.tx
    .insert(invoices)
    .values(
      parsed.map((o, i) => {
        const client = clientById.get(resolved[i].clientId)!;
        const { tax_ref: _ref, tax_id: _id, ...fields } = o.invoice ?? {};
        return {
          taxExempt: client.taxExempt,
          taxExemptReason: client.taxExemptReason,
          dueDate: o.deadline ?? null,
          ...invoiceColumns(fields),
          companyId: ctx.companyId,
          projectId: projectRows[i].id,
          clientId: resolved[i].clientId,
          taxId: resolved[i].taxId,
          createdAt: projectRows[i].createdAt,
          updatedAt: projectRows[i].createdAt,
        };
      }),
    )
    .returning({ id: invoices.id });

  const nested = <T>(pick: (o: (typeof parsed)[number]) => T[] | undefined) =>
    parsed.flatMap((o, i) => (pick(o) ?? []).map((record, position) => ({ record, position, i })));
  const items = nested((o) => o.items);
  const paid = nested((o) => o.payments);
  const art = nested((o) => o.artworks);
  const common = (i: number) => ({ companyId: ctx.companyId, createdAt: projectRows[i].createdAt, updatedAt: projectRows[i].createdAt });
  const [itemIds, paymentIds, artworkIds] = [
    items.length
      ? await ctx.tx
          .insert(invoiceItems)
          .values(
            items.map(({ record: it, position, i }) => ({
              ...common(i),
              invoiceId: invoiceRows[i].id,
              title: it.title,
              description: it.description ?? null,
              quantity: newItemQuantity(it),
              unitPrice: it.unit_price,
              sizes: it.sizes ?? null,
              position,
            })),
          )
          .returning({ id: invoiceItems.id })
      : [],
    paid.length
      ? await ctx.tx
          .insert(payments)
          .values(
            paid.map(({ record: p, i }) => ({
              ...common(i),
              invoiceId: invoiceRows[i].id,
              amount: p.amount,
              paidDate: p.paid_date ?? null,
              method: p.method ?? null,
              reference: p.reference ?? null,
            })),
          )
          .returning({ id: payments.id })
      : [],
    art.length
      ? await ctx.tx
          .insert(artworks)
          .values(
            art.map(({ record: a, i }) => ({
              ...common(i),
              projectId: projectRows[i].id,
              printMethod: a.print_method ?? null,
              placements: a.placements ?? [],
              colors: a.colors ?? [],
              previewUrl: a.preview_url ?? null,
              status: a.status ?? "draft",
              approvedAt: a.status === "approved" ? projectRows[i].createdAt : null,
            })),
          )
          .returning({ id: artworks.id })
      : [],
  ];

  parsed.forEach((o, i) => {
    remember(ctx, o.ref, projectRows[i].id);
  });
  items.forEach(({ record }, k) => {
    remember(ctx, record.ref, itemIds[k].id);
  });
  paid.forEach(({ record }, k) => {
    remember(ctx, record.ref, paymentIds[k].id);
  });
  art.forEach(({ record }, k) => {
    remember(ctx, record.ref, artworkIds[k].id);
  });
};

/** Every client must be a live client, every status and tax a row, of the importing company. Returns the clients by id. */
async function checkReferences(ctx: ImportContext, resolved: { clientId: number; statusId: number | null; taxId: number | null }[]) {
  const distinct = (pick: (r: (typeof resolved)[number]) => number | null) => [
    ...new Set(resolved.map(pick).filter((id): id is number => id !== null)),
  ];
  const [clientIds, statusIds, taxIds] = [distinct((r) => r.clientId), distinct((r) => r.statusId), distinct((r) => r.taxId)];
  const { tx, companyId } = ctx;
  // Sequential: a transaction is one connection.
  const clientRows = await tx
    .select({ id: clients.id, taxExempt: clients.taxExempt, taxExemptReason: clients.taxExemptReason })
    .from(clients)
    .where(and(liveClients(companyId), inArray(clients.id, clientIds)));
  const statusRows = statusIds.length
    ? await tx
        .select({ id: orderStatuses.id })
        .from(orderStatuses)
        .where(and(liveStatuses(companyId), inArray(orderStatuses.id, statusIds)))
    : [];
  const taxRows = taxIds.length
    ? await tx
        .select({ id: taxes.id })
        .from(taxes)
        .where(and(liveTaxes(companyId), inArray(taxes.id, taxIds)))
    : [];
  const has = (rows: { id: number }[]) => {
    const ids = new Set(rows.map((r) => r.id));
    return (id: number | null) => id === null || ids.has(id);
  };
  const [clientOk, statusOk, taxOk] = [has(clientRows), has(statusRows), has(taxRows)];
  resolved.forEach((r, i) => {
    if (!clientOk(r.clientId)) throw new ImportError(`orders[${i}]: client ${r.clientId} is not a live client of this company`);
    if (!statusOk(r.statusId)) throw new ImportError(`orders[${i}]: order status ${r.statusId} is not one of this company's`);
    if (!taxOk(r.taxId)) throw new ImportError(`orders[${i}]: tax ${r.taxId} is not one of this company's`);
  });
  return new Map(clientRows.map((c) => [c.id, c]));
}
