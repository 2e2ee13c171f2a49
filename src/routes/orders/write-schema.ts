import { z } from "@hono/zod-openapi";
import { schemaOnce } from "../../http/openapi";
import { artworkCreateSchema, itemFieldsSchema, MAX_CONTENTS, paymentCreateSchema, quantityMatchesSizes } from "./contents/schema";
import { MAX_DECORATIONS, orderLineDecorationSchema } from "./decorations/schema";
import { orderCreateFields } from "./schema";

/*
 * The bodies of the order writes that carry the order's contents: POST /orders, PUT
 * /orders/by-external-id/{external_id} and the batch's items. Line items, payments and artworks have
 * the fields of their own POSTs (contents/schema.ts), so one rule holds for each field everywhere.
 */

/** A line item of an order written whole: the fields of POST /orders/{id}/items and its decorations; its place is its index. */
export const orderLineSchema = schemaOnce(() =>
  itemFieldsSchema()
    .extend({
      decorations: z
        .array(orderLineDecorationSchema())
        .max(MAX_DECORATIONS)
        .optional()
        .openapi({ description: `Its decorations (at most ${MAX_DECORATIONS}), at positions 0, 1, 2 … in this order` }),
    })
    .superRefine(quantityMatchesSizes)
    .openapi("OrderLine"),
);

/** A decoration's `artwork_index` names one of the same body's `artworks` (400 naming it otherwise). */
function artworkIndexesInBody(
  body: { items?: { decorations?: { artwork_index?: number | null }[] }[]; artworks?: unknown[] },
  ctx: z.core.$RefinementCtx,
) {
  const count = body.artworks?.length ?? 0;
  for (const [i, item] of (body.items ?? []).entries()) {
    for (const [j, d] of (item.decorations ?? []).entries()) {
      if (d.artwork_index != null && d.artwork_index >= count) {
        ctx.addIssue({
          code: "custom",
          path: ["items", i, "decorations", j, "artwork_index"],
          message: count ? `Must be below ${count}, the number of artworks in this body` : "No artworks in this body",
        });
      }
    }
  }
}

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

export const orderCreateSchema = schemaOnce(() =>
  z
    .strictObject({ ...orderCreateFields(), ...contentsFields() })
    .superRefine(artworkIndexesInBody)
    .openapi("OrderCreate"),
);
export type OrderCreate = z.infer<ReturnType<typeof orderCreateSchema>>;

/** PUT /orders/by-external-id/{external_id}: the create fields; the external id is the path's. */
export const orderUpsertSchema = schemaOnce(() => {
  const { external_id: _, ...upsertFields } = orderCreateFields();
  return z
    .strictObject({ ...upsertFields, ...contentsFields() })
    .superRefine(artworkIndexesInBody)
    .openapi("OrderUpsert");
});
export type OrderUpsert = z.infer<ReturnType<typeof orderUpsertSchema>>;
export type OrderContentsInput = Pick<OrderCreate, "items" | "payments" | "artworks">;
