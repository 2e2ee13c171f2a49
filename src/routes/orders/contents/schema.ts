import { z } from "@hono/zod-openapi";
import { digitsInt, idParam, MAX_INT_ID } from "../../../http/openapi";
import { ArtworkFieldsSchema, InvoiceSchema, ItemFieldsSchema, MAX_CONTENTS, PaymentFieldsSchema, quantityMatchesSizes } from "../schema";

/** `{id}` (the order) and the contents row's id parameter. */
export const contentsParams = <N extends string>(name: N, what: string) =>
  idParam("Order (project) id").extend({
    [name]: digitsInt((n) => n.positive().max(MAX_INT_ID)).openapi({ param: { name, in: "path" }, description: `${what} id`, example: 7 }),
  } as unknown as { [K in N]: z.ZodType<number, string> });

const sendSomething = (b: object) => Object.keys(b).length > 0;
const SEND_SOMETHING = { message: "Send at least one field to change" };

const position = z
  .number()
  .int()
  .min(0)
  .max(MAX_CONTENTS)
  .openapi({ description: "0-based place among the order's live items; past the end means last", example: 0 });

export const ItemCreateSchema = ItemFieldsSchema.extend({ position: position.optional() })
  .superRefine(quantityMatchesSizes)
  .openapi("InvoiceItemCreate");
export const ItemPatchSchema = ItemFieldsSchema.partial()
  .extend({ position: position.optional() })
  .refine(sendSomething, SEND_SOMETHING)
  .superRefine(quantityMatchesSizes)
  .openapi("InvoiceItemPatch");
export type ItemPatch = z.infer<typeof ItemPatchSchema>;

export const PaymentCreateSchema = PaymentFieldsSchema.openapi("PaymentCreate");
export const PaymentPatchSchema = PaymentFieldsSchema.partial().refine(sendSomething, SEND_SOMETHING).openapi("PaymentPatch");

export const ArtworkCreateSchema = ArtworkFieldsSchema.openapi("ArtworkCreate");
export const ArtworkPatchSchema = ArtworkFieldsSchema.partial().refine(sendSomething, SEND_SOMETHING).openapi("ArtworkPatch");

const invoiceAfter = InvoiceSchema.openapi({ description: "The order's invoice after the change: new `totals` and `updated_at`" });

/** `{ <record>: …, invoice }`: what every contents POST and PATCH answers. */
export const changedSchema = <N extends string, S extends z.ZodType>(name: N, record: S, component: string) =>
  z.object({ [name]: record, invoice: invoiceAfter } as { [K in N]: S } & { invoice: typeof invoiceAfter }).openapi(component);

/** `{ deleted: true, id, invoice }`: what every contents DELETE answers. */
export const deletedSchema = (what: string, component: string) =>
  z
    .object({
      deleted: z.literal(true),
      id: z
        .number()
        .int()
        .openapi({ description: `The deleted ${what} id`, example: 7 }),
      invoice: invoiceAfter,
    })
    .openapi(component);
