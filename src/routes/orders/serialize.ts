import type { z } from "@hono/zod-openapi";
import type { decorations } from "../../db/schema/decorations";
import type { artworks, invoices, orderStatuses, payments, projects, taxes } from "../../db/schema/orders";
import { serializeClient } from "../../domain/client";
import type { serializeItem } from "../../domain/invoice-item";
import { type InvoiceTotals, invoiceTotals, type LineAmounts } from "../../domain/totals";
import { iso, wireFields } from "../../http/openapi";
import { plainDecimal } from "../../platform/money";
import type { ApprovalStatus } from "./approvals/status";
import type { artworkSchema, paymentSchema } from "./contents/schema";
import { serializeOrderItem } from "./decorations/schema";
import type {
  DISCOUNT_AMOUNT_TYPES,
  DISCOUNT_TYPES,
  invoiceSchema,
  orderEnvelopeSchema,
  orderStatusSchema,
  projectSchema,
  taxSchema,
} from "./schema";

/** Rows → the wire shapes declared in schema.ts. */
type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];

export const serializeProject = (row: Row<typeof projects>): z.infer<ReturnType<typeof projectSchema>> =>
  wireFields(row, [
    "id",
    "title",
    "description",
    "startDate",
    "deadline",
    "statusId",
    "clientId",
    "externalId",
    "metadata",
    "createdAt",
    "updatedAt",
  ]);

export const serializeInvoice = (row: Row<typeof invoices>, totals: InvoiceTotals): z.infer<ReturnType<typeof invoiceSchema>> => ({
  ...wireFields(row, ["id", "projectId", "clientId", "dueDate", "clientNotes", "taxId", "taxExempt", "taxExemptReason", "discountAmount"]),
  discount_amount_type: row.discountAmountType as (typeof DISCOUNT_AMOUNT_TYPES)[number],
  discount_type: row.discountType as (typeof DISCOUNT_TYPES)[number],
  totals,
  ...wireFields(row, ["createdAt", "updatedAt"]),
});

export const serializePayment = (row: Row<typeof payments>): z.infer<ReturnType<typeof paymentSchema>> =>
  wireFields(row, ["id", "amount", "paidDate", "method", "reference", "createdAt", "updatedAt"]);

export const serializeArtwork = (row: Row<typeof artworks>): z.infer<ReturnType<typeof artworkSchema>> =>
  wireFields(row, ["id", "printMethod", "placements", "colors", "previewUrl", "status", "approvedAt", "createdAt", "updatedAt"]);

export const serializeTax = (row: Row<typeof taxes>): z.infer<ReturnType<typeof taxSchema>> => ({
  id: row.id,
  name: row.name,
  rate: plainDecimal(row.rate),
});
export const serializeStatus = (row: Row<typeof orderStatuses>): z.infer<ReturnType<typeof orderStatusSchema>> =>
  wireFields(row, ["id", "name", "position"]);

/** The invoice's inputs to `invoiceTotals`, from its row and its tax row's rate. */
const invoiceTerms = (row: Row<typeof invoices>, taxRate: string | null) => ({
  discountAmount: row.discountAmount,
  discountAmountType: row.discountAmountType,
  discountType: row.discountType,
  taxExempt: row.taxExempt,
  taxRate,
});

/** An order as GET /orders/{id} answers it: the project, its default invoice with totals, and what hangs off them. */
export const serializeOrderDetail = (order: {
  project: Row<typeof projects>;
  invoice: Row<typeof invoices>;
  totals: InvoiceTotals;
  items: Parameters<typeof serializeItem>[0][];
  payments: Row<typeof payments>[];
  client: Parameters<typeof serializeClient>[0];
  tax: Row<typeof taxes> | null;
  status: Row<typeof orderStatuses> | null;
  artworks: Row<typeof artworks>[];
  artworkApprovals: Record<string, ArtworkApproval> | null;
  decorations: Row<typeof decorations>[];
}) => ({
  project: serializeProject(order.project),
  invoice: serializeInvoice(order.invoice, order.totals),
  invoice_items: itemsWithDecorations(order),
  payments: order.payments.map(serializePayment),
  client: serializeClient(order.client),
  tax: order.tax ? serializeTax(order.tax) : null,
  status: order.status ? serializeStatus(order.status) : null,
  artworks: order.artworks.map((a) => ({ ...serializeArtwork(a), approval: artworkApproval(order.artworkApprovals?.[a.id]) })),
});

type ArtworkApproval = { id: number; status: ApprovalStatus; expires_at: string; responded_at: string | null };
/** An artwork's latest approval (approvals/status.ts), timestamps as every answer writes them. */
const artworkApproval = (a: ArtworkApproval | undefined) =>
  a ? { ...a, expires_at: iso(a.expires_at) as string, responded_at: iso(a.responded_at) } : null;
/** The order's items, each with its decorations (rows in item, then position order). */
function itemsWithDecorations(order: {
  items: Parameters<typeof serializeItem>[0][];
  artworks: { id: number }[];
  decorations: Row<typeof decorations>[];
}) {
  const live = new Set(order.artworks.map((a) => a.id));
  const byItem = new Map<number, Row<typeof decorations>[]>();
  for (const d of order.decorations) byItem.set(d.invoiceItemId, [...(byItem.get(d.invoiceItemId) ?? []), d]);
  return order.items.map((item) => serializeOrderItem(item, byItem.get(item.id) ?? [], live));
}

/** What an order's totals are computed from: its invoice row, its tax's rate, its live lines and payments. */
export interface OrderAmounts {
  invoice: Row<typeof invoices>;
  taxRate: string | null;
  lines: LineAmounts[];
  payments: { amount: string }[];
}

/** The invoice's totals, as every answer that shows an order computes them (never stored). */
export const orderTotals = ({ invoice, taxRate, lines, payments }: OrderAmounts): InvoiceTotals =>
  invoiceTotals(
    invoiceTerms(invoice, taxRate),
    lines,
    payments.map((p) => p.amount),
  );

/** `{ project, invoice }`, the invoice with its totals: what POST and PATCH /orders answer and every order event carries. */
export const orderEnvelope = (
  order: OrderAmounts & { project: Row<typeof projects> },
): z.infer<ReturnType<typeof orderEnvelopeSchema>> => ({
  project: serializeProject(order.project),
  invoice: serializeInvoice(order.invoice, orderTotals(order)),
});
export type OrderEnvelope = ReturnType<typeof orderEnvelope>;
