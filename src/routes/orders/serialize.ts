import type { z } from "@hono/zod-openapi";
import type { artworks, invoices, orderStatuses, payments, projects, taxes } from "../../db/schema";
import type { InvoiceTotals } from "../../domain/totals";
import { iso } from "../../http/openapi";
import { plainDecimal } from "../../platform/money";
import type {
  ArtworkSchema,
  DISCOUNT_AMOUNT_TYPES,
  DISCOUNT_TYPES,
  InvoiceSchema,
  OrderStatusSchema,
  PaymentSchema,
  ProjectSchema,
  TaxSchema,
} from "./schema";

/** Rows → the wire shapes declared in schema.ts. */
type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];

export function serializeProject(row: Row<typeof projects>): z.infer<typeof ProjectSchema> {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    start_date: row.startDate,
    deadline: row.deadline,
    status_id: row.statusId,
    client_id: row.clientId,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function serializeInvoice(row: Row<typeof invoices>, totals: InvoiceTotals): z.infer<typeof InvoiceSchema> {
  return {
    id: row.id,
    project_id: row.projectId,
    client_id: row.clientId,
    due_date: row.dueDate,
    client_notes: row.clientNotes,
    tax_id: row.taxId,
    tax_exempt: row.taxExempt,
    tax_exempt_reason: row.taxExemptReason,
    discount_amount: row.discountAmount,
    discount_amount_type: row.discountAmountType as (typeof DISCOUNT_AMOUNT_TYPES)[number],
    discount_type: row.discountType as (typeof DISCOUNT_TYPES)[number],
    totals,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function serializePayment(row: Row<typeof payments>): z.infer<typeof PaymentSchema> {
  return {
    id: row.id,
    amount: row.amount,
    paid_date: row.paidDate,
    method: row.method,
    reference: row.reference,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function serializeArtwork(row: Row<typeof artworks>): z.infer<typeof ArtworkSchema> {
  return {
    id: row.id,
    print_method: row.printMethod,
    placements: row.placements,
    colors: row.colors,
    preview_url: row.previewUrl,
    status: row.status,
    approved_at: iso(row.approvedAt),
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export const serializeTax = (row: Row<typeof taxes>): z.infer<typeof TaxSchema> => ({
  id: row.id,
  name: row.name,
  rate: plainDecimal(row.rate),
});
export const serializeStatus = (row: Row<typeof orderStatuses>): z.infer<typeof OrderStatusSchema> => ({
  id: row.id,
  name: row.name,
  position: row.position,
});

/** The invoice's inputs to `invoiceTotals`, from its row and its tax row's rate. */
export const invoiceTerms = (row: Row<typeof invoices>, taxRate: string | null) => ({
  discountAmount: row.discountAmount,
  discountAmountType: row.discountAmountType,
  discountType: row.discountType,
  taxExempt: row.taxExempt,
  taxRate,
});
