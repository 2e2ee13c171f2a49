import { z } from "@hono/zod-openapi";
import type { invoices } from "../../db/schema/orders";
import { externalIdField, externalIdSchema, metadataField, metadataSchema } from "../../domain/external";
import { columnFields, dbId, MAX_INT_ID, nullableText, schemaOnce, text, timestamp } from "../../http/openapi";
import { isoDate } from "../../platform/dates";
import { decimalInput, MAX_MONEY, moneyString } from "../../platform/money";

const isoDateField = (description: string, example = "2026-12-01") =>
  isoDate().openapi({ description: `${description} (YYYY-MM-DD)`, example });

export const DISCOUNT_AMOUNT_TYPES = ["percentage", "fixed_amount"] as const;
export const DISCOUNT_TYPES = ["before_tax", "after_tax"] as const;
type DiscountAmountType = (typeof DISCOUNT_AMOUNT_TYPES)[number];

/** `fixed` and `amount` are accepted aliases of `fixed_amount`; what is stored and returned is always `fixed_amount`. */
const discountAmountType = () =>
  z
    .enum(["percentage", "fixed_amount", "fixed", "amount"])
    .transform((v): DiscountAmountType => (v === "percentage" ? "percentage" : "fixed_amount"))
    .openapi({ description: "`percentage` or `fixed_amount` (aliases `fixed`, `amount` store `fixed_amount`)", example: "percentage" });

export const quickbooksEnabled = schemaOnce(() =>
  z.boolean().optional().openapi({ description: "Accounting sync for this request; when omitted the company-level setting applies" }),
);

/** Invoice fields of the default invoice, shared by PATCH /orders/{id} and the import's `invoice` object. */
export const invoiceFields = schemaOnce(() => ({
  client_notes: nullableText(5000, "Thanks for your order!").openapi({ description: "Customer-facing note on the invoice" }),
  tax_exempt: z.boolean().optional(),
  tax_exempt_reason: nullableText(1000),
  discount_amount: decimalInput({
    scale: 2,
    min: 0,
    max: MAX_MONEY,
    example: "10.00",
    description: "Discount: a percent (0–100) or an amount (≥ 0), per discount_amount_type",
  }).optional(),
  discount_amount_type: discountAmountType().optional(),
  discount_type: z.enum(DISCOUNT_TYPES).optional().openapi({ description: "`before_tax` (default) or `after_tax`" }),
}));

const PERCENT_MAX = 100;
/** A percentage discount stays within 0–100 (checked here when both fields arrive together, else against the stored type). */
export const percentOutOfRange = (amount: string | undefined, type: string | undefined) =>
  amount !== undefined && type === "percentage" && Number(amount) > PERCENT_MAX;
const discountInRange = (b: { discount_amount?: string; discount_amount_type?: string }) =>
  !percentOutOfRange(b.discount_amount, b.discount_amount_type);
/** An imported invoice has no stored type to check against: without a type it is stored `percentage`, so the amount is a percent. */
export const importedDiscountInRange = (b: { discount_amount?: string; discount_amount_type?: string }) =>
  !percentOutOfRange(b.discount_amount, b.discount_amount_type ?? "percentage");
export const PERCENT_MESSAGE = "A percentage discount must be between 0 and 100";

export const startDate = schemaOnce(() =>
  text(100).nullable().optional().openapi({ description: "Passed through unchanged (ISO date recommended)", example: "2026-11-20" }),
);

/** The project fields of POST /orders (the whole body, with the order's contents: write-schema.ts). */
export const orderCreateFields = schemaOnce(() => ({
  title: text(500).min(1, "title must not be blank").openapi({ example: "Spring league jerseys" }),
  client_id: dbId().openapi({ description: "A live client of your company", example: 42 }),
  description: nullableText(10_000, "Two-color front print, names on back"),
  quickbooks_enabled: quickbooksEnabled(),
  external_id: externalIdField(),
  metadata: metadataField(),
}));

export const orderPatchSchema = schemaOnce(() =>
  z
    .strictObject({
      title: text(500).min(1, "title must not be blank").optional(),
      description: nullableText(10_000).openapi({ description: "Project description; synced as the accounting private note" }),
      start_date: startDate(),
      deadline: isoDateField("Project deadline; also copied to the invoice due date. null clears both").nullable().optional(),
      client_id: dbId().optional().openapi({ description: "A live client of your company; updates project and invoice" }),
      status_id: dbId().nullable().optional().openapi({ description: "One of your company's order statuses; null clears it" }),
      tax_id: z
        .number()
        .int()
        .min(0)
        .max(MAX_INT_ID)
        .nullable()
        .optional()
        .openapi({ description: "One of your company's tax rows; 0 or null means no tax" }),
      ...invoiceFields(),
      quickbooks_enabled: quickbooksEnabled(),
      external_id: externalIdField(),
      metadata: metadataField(),
    })
    .refine((b) => Object.keys(b).some((k) => k !== "quickbooks_enabled"), { message: "Send at least one field to change" })
    .refine(discountInRange, { message: PERCENT_MESSAGE, path: ["discount_amount"] })
    .openapi("OrderPatch"),
);
export type OrderPatch = z.infer<ReturnType<typeof orderPatchSchema>>;

/** Wire → columns for the fields present; `deadline` and `client_id` belong to both records. */
export const projectColumns = (b: OrderPatch) =>
  columnFields(b, ["title", "description", "startDate", "deadline", "clientId", "statusId", "externalId"]);
export function invoiceColumns(b: Partial<OrderPatch> & { due_date?: string | null }): Partial<typeof invoices.$inferInsert> {
  return {
    ...columnFields(b, ["clientId", "clientNotes", "taxExempt", "taxExemptReason", "discountAmount", "discountAmountType", "discountType"]),
    // The project's deadline is its invoice's due date; the import sends the due date itself.
    ...(b.deadline === undefined ? {} : { dueDate: b.deadline }),
    ...(b.due_date === undefined ? {} : { dueDate: b.due_date }),
    // Tax 0 means no tax.
    ...(b.tax_id === undefined ? {} : { taxId: b.tax_id || null }),
  };
}

// ---- Responses ----

export const dateOrNull = () => z.string().nullable().openapi({ format: "date", example: "2026-12-01" });

export const projectSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 7 }),
      title: z.string(),
      description: z.string().nullable(),
      start_date: z.string().nullable().openapi({ description: "As sent (passed through unchanged)" }),
      deadline: dateOrNull(),
      status_id: z.number().int().nullable(),
      client_id: z.number().int(),
      external_id: externalIdSchema(),
      metadata: metadataSchema(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Project"),
);

export const invoiceTotalsSchema = schemaOnce(() =>
  z
    .object({
      subtotal: moneyString("Σ line amounts; a line amount is quantity × unit_price rounded half-up to cents"),
      discount: moneyString("Discount applied; never more than the base it applies to"),
      tax: moneyString("Tax; 0 when tax-exempt or without a tax row"),
      total: moneyString("subtotal − discount + tax"),
      amount_paid: moneyString("Σ payments"),
      balance_due: moneyString("total − amount_paid; negative when overpaid"),
    })
    .openapi("InvoiceTotals", {
      description:
        "Computed, never stored. Amounts round half-up to cents at each step (line amount, percentage discount, tax). " +
        "before_tax: discount on the subtotal, tax on (subtotal − discount). after_tax: tax on the subtotal, discount on (subtotal + tax).",
    }),
);

export const invoiceSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      project_id: z.number().int(),
      client_id: z.number().int(),
      due_date: dateOrNull(),
      client_notes: z.string().nullable(),
      tax_id: z.number().int().nullable(),
      tax_exempt: z.boolean(),
      tax_exempt_reason: z.string().nullable(),
      discount_amount: moneyString("Percent or amount, per discount_amount_type"),
      discount_amount_type: z.enum(DISCOUNT_AMOUNT_TYPES),
      discount_type: z.enum(DISCOUNT_TYPES),
      totals: invoiceTotalsSchema(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Invoice"),
);

export const taxSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      name: z.string(),
      rate: z.string().openapi({ description: "Percent, decimal string", example: "8.875" }),
    })
    .openapi("Tax"),
);
export const orderStatusSchema = schemaOnce(() =>
  z.object({ id: z.number().int(), name: z.string(), position: z.number().int() }).openapi("OrderStatus"),
);

export const orderEnvelopeSchema = schemaOnce(() =>
  z.object({ project: projectSchema(), invoice: invoiceSchema() }).openapi("OrderEnvelope"),
);

/** `data.previous_attributes` of `order.status_changed`: the status the order left. */
export const statusChangePreviousSchema = schemaOnce(() =>
  z
    .object({
      status_id: z.number().int().nullable().openapi({ description: "The status id before the change (null: it had none)", example: 3 }),
    })
    .openapi("OrderStatusChangePrevious"),
);

/**
 * `data.previous_attributes` of `order.updated`: each of the order's fields (under the PATCH body's names)
 * the change replaced, with the value it had; `{}` for a change of its contents (line items, payments,
 * artworks) or of its tax's rate, which changes none of them (the totals follow from the rows).
 */
export const orderUpdatePreviousSchema = schemaOnce(() =>
  projectSchema()
    .pick({
      title: true,
      description: true,
      start_date: true,
      deadline: true,
      client_id: true,
      status_id: true,
      external_id: true,
      metadata: true,
    })
    .extend(
      invoiceSchema().pick({
        client_notes: true,
        tax_id: true,
        tax_exempt: true,
        tax_exempt_reason: true,
        discount_amount: true,
        discount_amount_type: true,
        discount_type: true,
      }).shape,
    )
    .partial()
    .openapi("OrderUpdatePrevious"),
);
