import { z } from "@hono/zod-openapi";
import type { invoiceItems } from "../db/schema/orders";
import { schemaOnce, timestamp, wireFields } from "../http/openapi";
import { moneyString, plainDecimal } from "../platform/money";
import { orderedSizes } from "./sizes";
import { lineAmount } from "./totals";

/** One invoice item shape for the whole API (orders and the products `lines` / `invoice_item` sources). */
export const invoiceItemSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int(),
      invoice_id: z.number().int(),
      title: z.string(),
      description: z.string().nullable(),
      quantity: z.string().openapi({ description: "Decimal string", example: "24" }),
      unit_price: moneyString(),
      amount: moneyString("quantity × unit_price, rounded half-up to cents"),
      sizes: z
        .record(z.string(), z.number())
        .nullable()
        .openapi({ example: { S: 4, M: 12, L: 8 } }),
      position: z.number().int(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("InvoiceItem"),
);

export function serializeItem(row: typeof invoiceItems.$inferSelect): z.infer<ReturnType<typeof invoiceItemSchema>> {
  return {
    ...wireFields(row, ["id", "invoiceId", "title", "description"]),
    quantity: plainDecimal(row.quantity),
    unit_price: row.unitPrice,
    amount: lineAmount({ quantity: row.quantity, unit_price: row.unitPrice }).toFixed(2),
    sizes: row.sizes ? orderedSizes(row.sizes) : null,
    ...wireFields(row, ["position", "createdAt", "updatedAt"]),
  };
}
