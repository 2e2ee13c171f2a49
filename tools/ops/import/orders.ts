import { z } from "@hono/zod-openapi";
import { dbId } from "../../../src/http/openapi";
import { isoDate, isoDateTime } from "../../../src/platform/dates";
import {
  artworkFieldsSchema,
  itemFieldsSchema,
  MAX_CONTENTS,
  paymentFieldsSchema,
  quantityMatchesSizes,
} from "../../../src/routes/orders/contents/schema";
import { importedDiscountInRange, invoiceFields, orderCreateFields, PERCENT_MESSAGE, startDate } from "../../../src/routes/orders/schema";
import { createOrders, type OrderCreateWrite } from "../../../src/routes/orders/write";
import { insertStatuses, insertTaxes, statusCreateSchema, taxCreateSchema } from "../settings";
import { parseRecord, refSchema, refused, remember, resolveRef, type SectionImporter } from "./kit";

// Same field rules as the API, plus refs and nested records.
const refOrId = { ref: refSchema.optional(), id: dbId().optional() };
const OrderImportSchema = z
  .strictObject({
    ref: refSchema,
    client_ref: refOrId.ref,
    client_id: refOrId.id,
    title: orderCreateFields().title,
    description: orderCreateFields().description,
    quickbooks_enabled: orderCreateFields().quickbooks_enabled,
    external_id: orderCreateFields().external_id,
    metadata: orderCreateFields().metadata,
    start_date: startDate(),
    deadline: isoDate().nullable().optional(),
    status_ref: refOrId.ref,
    status_id: refOrId.id,
    created_at: isoDateTime().optional(),
    invoice: z
      .strictObject({ ...invoiceFields(), due_date: isoDate().nullable().optional(), tax_ref: refOrId.ref, tax_id: refOrId.id })
      .refine(importedDiscountInRange, { message: PERCENT_MESSAGE, path: ["discount_amount"] })
      .optional(),
    items: z
      .array(itemFieldsSchema().extend({ ref: refSchema }).superRefine(quantityMatchesSizes))
      .max(MAX_CONTENTS)
      .optional(),
    payments: z
      .array(paymentFieldsSchema().extend({ ref: refSchema }))
      .max(MAX_CONTENTS)
      .optional(),
    artworks: z
      .array(artworkFieldsSchema().extend({ ref: refSchema }))
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
  const parsed = records.map((r, i) => parseRecord(statusCreateSchema().extend({ ref: refSchema }), r, `order_statuses[${i}]`));
  const ids = await insertStatuses(ctx.tx, ctx.companyId, parsed);
  parsed.forEach((p, i) => {
    remember(ctx, p.ref, ids[i]);
  });
};

/** `taxes: [{ ref, name, rate }]` (rate in percent) */
export const importTaxes: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(taxCreateSchema().extend({ ref: refSchema }), r, `taxes[${i}]`));
  const ids = await insertTaxes(ctx.tx, ctx.companyId, parsed);
  parsed.forEach((p, i) => {
    remember(ctx, p.ref, ids[i]);
  });
};

/**
 * `orders: [{ ref, client_ref | client_id, title, description?, quickbooks_enabled?, external_id?, metadata?, start_date?, deadline?,
 *   status_ref | status_id?, created_at?,
 *   invoice?: { due_date?, client_notes?, tax_ref | tax_id?, tax_exempt?, tax_exempt_reason?, discount_amount?, discount_amount_type?, discount_type? },
 *   items?: [{ ref, title, description?, quantity?, unit_price, sizes? }], payments?: [{ ref, amount, paid_date?, method?, reference? }],
 *   artworks?: [{ ref, print_method?, placements?, colors?, preview_url?, status? }] }]`
 * Written as POST /orders/batch writes its creates (createOrders: one statement for the section): each order with its default
 * invoice (the client's tax exemption unless the invoice says otherwise), its contents, its `order.created` event and, when
 * sync applies (`quickbooks_enabled`, else the company's setting), its accounting `create`. What only an import gives: the
 * creation time (of the order and all its records), status, dates and invoice terms. An item's quantity defaults to the sum
 * of its sizes, else 1; an artwork's status to `draft`, and an approved one is approved as of the order's creation.
 */
export const importOrders: SectionImporter = async (ctx, records) => {
  const parsed = records.map((r, i) => parseRecord(OrderImportSchema, r, `orders[${i}]`));
  if (!parsed.length) return;
  const where = (i: number, field: string) => `orders[${i}].${field}`;
  const creates = parsed.map((o, i): OrderCreateWrite => {
    const { ref: _ref, client_ref, client_id, status_ref, status_id, created_at, start_date, deadline, invoice, ...body } = o;
    const clientId = resolveRef(ctx, client_ref, client_id, where(i, client_ref ? "client_ref" : "client_id"));
    const statusId = status_ref || status_id ? resolveRef(ctx, status_ref, status_id, where(i, "status_ref")) : null;
    const { tax_ref, tax_id, ...terms } = invoice ?? {};
    const taxId = tax_ref || tax_id ? resolveRef(ctx, tax_ref, tax_id, where(i, "invoice.tax_ref")) : undefined;
    const strip = <T extends { ref: string }>(rows: T[] | undefined) => rows?.map(({ ref: _, ...row }) => row);
    return {
      body: {
        ...body,
        client_id: clientId,
        items: strip(body.items),
        payments: strip(body.payments),
        artworks: strip(body.artworks),
      },
      imported: {
        createdAt: created_at,
        statusId,
        startDate: start_date,
        deadline,
        invoice: { ...terms, ...(taxId === undefined ? {} : { tax_id: taxId }) },
      },
    };
  });
  const outcomes = await createOrders(ctx.change, creates);
  outcomes.forEach((o, i) => {
    if ("error" in o) throw refused(`orders[${i}]`, o.error);
    remember(ctx, parsed[i].ref, o.project.id);
    const nested = [
      [parsed[i].items, o.contentIds.items],
      [parsed[i].payments, o.contentIds.payments],
      [parsed[i].artworks, o.contentIds.artworks],
    ] as const;
    for (const [rows, ids] of nested) {
      (rows ?? []).forEach((row, k) => {
        remember(ctx, row.ref, ids[k]);
      });
    }
  });
};
