import { z } from "@hono/zod-openapi";
import { schemaOnce } from "../../http/openapi";
import { artworkCreateSchema, itemFieldsSchema, MAX_CONTENTS, paymentCreateSchema, quantityMatchesSizes } from "./contents/schema";
import { orderCreateFields } from "./schema";

/*
 * The bodies of the order writes that carry the order's contents: POST /orders, PUT
 * /orders/by-external-id/{external_id} and the batch's items. Line items, payments and artworks have
 * the fields of their own POSTs (contents/schema.ts), so one rule holds for each field everywhere.
 */

/** A line item of an order written whole: the fields of POST /orders/{id}/items; its place is its index. */
export const orderLineSchema = schemaOnce(() => itemFieldsSchema().superRefine(quantityMatchesSizes).openapi("OrderLine"));

const contentsFields = schemaOnce(() => ({
  items: z
    .array(orderLineSchema())
    .max(MAX_CONTENTS)
    .optional()
    .openapi({ description: `Line items (at most ${MAX_CONTENTS}), at positions 0, 1, 2 … in this order` }),
  payments: z
    .array(paymentCreateSchema())
    .max(MAX_CONTENTS)
    .optional()
    .openapi({ description: `Payments (at most ${MAX_CONTENTS})` }),
  artworks: z
    .array(artworkCreateSchema())
    .max(MAX_CONTENTS)
    .optional()
    .openapi({ description: `Artworks (at most ${MAX_CONTENTS})` }),
}));

export const orderCreateSchema = schemaOnce(() => z.strictObject({ ...orderCreateFields(), ...contentsFields() }).openapi("OrderCreate"));
export type OrderCreate = z.infer<ReturnType<typeof orderCreateSchema>>;

/** PUT /orders/by-external-id/{external_id}: the create fields; the external id is the path's. */
export const orderUpsertSchema = schemaOnce(() => {
  const { external_id: _, ...upsertFields } = orderCreateFields();
  return z.strictObject({ ...upsertFields, ...contentsFields() }).openapi("OrderUpsert");
});
export type OrderUpsert = z.infer<ReturnType<typeof orderUpsertSchema>>;
export type OrderContentsInput = Pick<OrderCreate, "items" | "payments" | "artworks">;
