import { z } from "@hono/zod-openapi";
import Big from "big.js";
import { APPAREL_SIZES, canonicalSize } from "../../../domain/sizes";
import { deletedSchema, digitsInt, idParam, MAX_INT_ID, nullableText, schemaOnce, text, timestamp } from "../../../http/openapi";
import { isoDate } from "../../../platform/dates";
import { decimalInput, MAX_MONEY, moneyString } from "../../../platform/money";
import { dateOrNull, invoiceSchema } from "../schema";

/*
 * An order's contents (line items, payments, artworks): their fields, shared by the API bodies and the
 * import's records, the request bodies of the contents routes, and what those routes answer.
 */

/** Live items, payments and artworks an order holds at most, each (the API and the import alike). */
export const MAX_CONTENTS = 1000;
export const ARTWORK_STATUSES = ["draft", "sent", "approved", "rejected"] as const;
const MAX_SIZE_COUNT = 1_000_000;

/** A size breakdown: apparel sizes (any case; stored in canonical spelling) → whole counts. */
const sizesField = () =>
  z
    .record(z.string(), z.number().int().min(0).max(MAX_SIZE_COUNT))
    .transform((sizes, ctx) => {
      const out: Record<string, number> = {};
      for (const [key, count] of Object.entries(sizes)) {
        const size = canonicalSize(key);
        if (size === undefined) ctx.addIssue({ code: "custom", path: [key], message: `Unknown size; one of ${APPAREL_SIZES.join(", ")}` });
        else if (size in out) ctx.addIssue({ code: "custom", path: [key], message: `Size ${size} given twice` });
        else out[size] = count;
      }
      if (!Object.keys(out).length && !ctx.issues.length) {
        ctx.addIssue({ code: "custom", message: "Give at least one size, or null for no breakdown" });
      }
      return out;
    })
    .openapi({
      type: "object",
      additionalProperties: { type: "integer", minimum: 0, maximum: MAX_SIZE_COUNT },
      maxProperties: APPAREL_SIZES.length,
      description: `Size breakdown: size → count. Sizes: ${APPAREL_SIZES.join(", ")} (any case). null removes the breakdown`,
      example: { S: 4, M: 12, L: 8 },
    });

/** Σ of a size breakdown, as a decimal. */
export const sizesTotal = (sizes: Record<string, number>) => Object.values(sizes).reduce((sum, n) => sum.plus(n), new Big(0));

export const itemFieldsSchema = schemaOnce(() =>
  z.strictObject({
    title: text(500).min(1, "title must not be blank").openapi({ example: "Gildan 5000 tee, 2-color front" }),
    description: nullableText(10_000),
    quantity: decimalInput({
      scale: 2,
      min: 0,
      max: "9999999999.99",
      example: "24",
      description: "Quantity; with sizes it must equal their sum, without it the sum of sizes (else 1)",
    }).optional(),
    unit_price: decimalInput({ scale: 2, min: 0, max: MAX_MONEY, example: "12.50", description: "Unit price" }),
    sizes: sizesField().nullable().optional(),
  }),
);
type ItemFields = { quantity?: string; sizes?: Record<string, number> | null };

/** Quantity and sizes sent together must agree (the import and both item bodies check this). */
export function quantityMatchesSizes(item: ItemFields, ctx: z.core.$RefinementCtx) {
  if (item.quantity === undefined || !item.sizes) return;
  const sum = sizesTotal(item.sizes);
  if (!sum.eq(item.quantity))
    ctx.addIssue({ code: "custom", path: ["quantity"], message: `quantity must equal the sum of sizes (${sum})` });
}
/** A new item's quantity: as sent, else the sum of its sizes, else 1. */
export const newItemQuantity = (item: ItemFields) => item.quantity ?? (item.sizes ? sizesTotal(item.sizes).toFixed(2) : "1.00");

export const paymentFieldsSchema = schemaOnce(() =>
  z.strictObject({
    amount: decimalInput({ scale: 2, min: 0, max: MAX_MONEY, example: "150.00", description: "Amount paid" }),
    paid_date: isoDate().nullable().optional().openapi({ description: "Date paid (YYYY-MM-DD)", example: "2026-12-01" }),
    method: nullableText(100, "card").openapi({ description: "How it was paid (free text: card, check, cash, …)" }),
    reference: nullableText(255, "ch_3PqX…").openapi({ description: "Check number, processor charge id, …" }),
  }),
);

export const artworkFieldsSchema = schemaOnce(() =>
  z.strictObject({
    print_method: nullableText(100, "screen_print"),
    placements: z
      .array(text(100).min(1))
      .max(50)
      .optional()
      .openapi({ example: ["front", "back"] }),
    colors: z
      .array(text(100).min(1))
      .max(50)
      .optional()
      .openapi({ example: ["PMS 186 C", "White"] }),
    preview_url: z.httpUrl().max(2048).nullable().optional().openapi({ description: "http or https URL of a preview image" }),
    status: z
      .enum(ARTWORK_STATUSES)
      .optional()
      .openapi({ description: `One of ${ARTWORK_STATUSES.join(", ")} (new artworks start as draft)` }),
  }),
);

// ---- Request bodies ----

/** `{id}` (the order) and the contents row's id parameter. */
export const contentsParams = <N extends string>(name: N, what: string) =>
  idParam("Order (project) id").extend({
    [name]: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({ param: { name, in: "path" }, description: `${what} id`, example: 7 }),
  } as unknown as { [K in N]: z.ZodType<number, string> });

const sendSomething = (b: object) => Object.keys(b).length > 0;
const SEND_SOMETHING = { message: "Send at least one field to change" };

const position = schemaOnce(() =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_CONTENTS)
    .openapi({ description: "0-based place among the order's live items; past the end means last", example: 0 }),
);

export const itemCreateSchema = schemaOnce(() =>
  itemFieldsSchema().extend({ position: position().optional() }).superRefine(quantityMatchesSizes).openapi("InvoiceItemCreate"),
);
export const itemPatchSchema = schemaOnce(() =>
  itemFieldsSchema()
    .partial()
    .extend({ position: position().optional() })
    .refine(sendSomething, SEND_SOMETHING)
    .superRefine(quantityMatchesSizes)
    .openapi("InvoiceItemPatch"),
);
export type ItemPatch = z.infer<ReturnType<typeof itemPatchSchema>>;

export const paymentCreateSchema = schemaOnce(() => paymentFieldsSchema().openapi("PaymentCreate"));
export const paymentPatchSchema = schemaOnce(() =>
  paymentFieldsSchema().partial().refine(sendSomething, SEND_SOMETHING).openapi("PaymentPatch"),
);

export const artworkCreateSchema = schemaOnce(() => artworkFieldsSchema().openapi("ArtworkCreate"));
export const artworkPatchSchema = schemaOnce(() =>
  artworkFieldsSchema().partial().refine(sendSomething, SEND_SOMETHING).openapi("ArtworkPatch"),
);

// ---- Responses ----

export const paymentSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      amount: moneyString(),
      paid_date: dateOrNull(),
      method: z.string().nullable(),
      reference: z.string().nullable(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Payment"),
);

export const artworkSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      print_method: z.string().nullable().openapi({ example: "screen_print" }),
      placements: z.array(z.string()).openapi({ example: ["front", "back"] }),
      colors: z.array(z.string()).openapi({ example: ["PMS 186 C", "White"] }),
      preview_url: z.string().nullable(),
      status: z
        .string()
        .nullable()
        .openapi({ description: `One of ${ARTWORK_STATUSES.join(", ")}`, example: "approved" }),
      approved_at: timestamp().nullable().openapi({ description: "When the status last became approved; null while not approved" }),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("Artwork"),
);

const invoiceAfter = schemaOnce(() =>
  invoiceSchema().openapi({ description: "The order's invoice after the change: new `totals` and `updated_at`" }),
);

/** `{ <record>: …, invoice }`: what every contents POST and PATCH answers. */
export const changedSchema = <N extends string, S extends z.ZodType>(name: N, record: S, component: string) =>
  z
    .object({ [name]: record, invoice: invoiceAfter() } as { [K in N]: S } & { invoice: ReturnType<typeof invoiceAfter> })
    .openapi(component);

/** `{ deleted: true, id, invoice }`: what every contents DELETE answers. */
export const contentsDeletedSchema = (what: string, component: string) =>
  deletedSchema(component, `The deleted ${what} id`, 7, { invoice: invoiceAfter() });
