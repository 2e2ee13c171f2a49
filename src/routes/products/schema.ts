import { z } from "@hono/zod-openapi";
import type { invoiceItems } from "../../db/schema/orders";
import type { catalogItems } from "../../db/schema/products";
import { invoiceItemSchema, serializeItem } from "../../domain/invoice-item";
import { schemaOnce, timestamp, wireFields } from "../../http/openapi";
import { moneyString } from "../../platform/money";

export const SEARCH_SOURCES = ["local", "supplier_b", "supplier_a", "lines"] as const;
export type SearchSource = (typeof SEARCH_SOURCES)[number];

const money = (description?: string) => moneyString(description).nullable();
const text = () => z.string().nullable();

export const catalogItemSchema = schemaOnce(() =>
  z
    .object({
      id: z.number().int().openapi({ example: 7 }),
      title: z.string().openapi({ example: "Gildan 5000 Heavy Cotton Tee — screen print, 1 color" }),
      sku: text().openapi({ example: "TEE-G5000-1C" }),
      description: text(),
      unit_price: money(),
      category: text().openapi({ example: "T-Shirts" }),
      image_url: text(),
      created_at: timestamp(),
      updated_at: timestamp(),
    })
    .openapi("CatalogItem"),
);

export function serializeCatalogItem(row: typeof catalogItems.$inferSelect): z.infer<ReturnType<typeof catalogItemSchema>> {
  return wireFields(row, ["id", "title", "sku", "description", "unitPrice", "category", "imageUrl", "createdAt", "updatedAt"]);
}

/** An invoice item (the orders' shape) plus the order it belongs to. */
export const invoiceLineSchema = schemaOnce(() =>
  invoiceItemSchema()
    .extend({
      order_id: z.number().int().openapi({ description: "The order (project) the invoice belongs to" }),
    })
    .openapi("InvoiceLine"),
);

export function serializeInvoiceLine(
  row: typeof invoiceItems.$inferSelect & { orderId: number },
): z.infer<ReturnType<typeof invoiceLineSchema>> {
  return { ...serializeItem(row), order_id: row.orderId };
}

export const supplierBStyleSchema = schemaOnce(() =>
  z
    .object({
      style_id: z
        .number()
        .int()
        .openapi({ description: "The supplier's style id (use as `styleId` on GET /products/supplier_b)", example: 39 }),
      part_number: text().openapi({ example: "00760" }),
      brand_name: text().openapi({ example: "Gildan" }),
      style_name: text().openapi({ example: "2000" }),
      title: text().openapi({ example: "Ultra Cotton T-Shirt" }),
      base_category: text().openapi({ example: "T-Shirts" }),
      image_url: text(),
      new_style: z.boolean(),
    })
    .openapi("SupplierBStyle"),
);

export const supplierBColorSchema = schemaOnce(() =>
  z
    .object({
      style_id: z.number().int(),
      brand_name: text(),
      style_name: text(),
      color_name: text().openapi({ example: "Navy" }),
      color_code: text().openapi({ example: "32" }),
      color_swatch_image_url: text(),
      color_front_image_url: text(),
      color_back_image_url: text(),
      sizes: z.array(
        z.object({
          sku: z.string().openapi({ example: "B00760033" }),
          size_name: text().openapi({ example: "M" }),
          size_order: text(),
          piece_price: money(),
          dozen_price: money(),
          case_price: money(),
          customer_price: money("The account's own price; exact decimal string with two decimals"),
          qty: z.number().nullable().openapi({ description: "Units in stock over all warehouses" }),
          warehouses: z.array(z.object({ warehouse: text().openapi({ example: "IL" }), qty: z.number().nullable() })),
        }),
      ),
    })
    .openapi("SupplierBColor"),
);

export const supplierAProductSchema = schemaOnce(() =>
  z
    .object({
      style: z.string().openapi({ example: "PC54" }),
      title: text(),
      description: text(),
      brand_name: text().openapi({ example: "Port & Company" }),
      category: text(),
      color: text().openapi({ example: "Navy" }),
      catalog_color: text().openapi({ description: "The supplier's color name for ordering", example: "Navy" }),
      size: text().openapi({ example: "M" }),
      size_index: z.number().int().nullable(),
      unique_key: text(),
      inventory_key: text(),
      status: text().openapi({ example: "Active" }),
      case_size: z.number().int().nullable(),
      piece_price: money(),
      dozen_price: money(),
      case_price: money(),
      sale_piece_price: money(),
      sale_case_price: money(),
      sale_start_date: text(),
      sale_end_date: text(),
      image_url: text(),
      color_image_url: text(),
      swatch_image_url: text(),
      front_model_image_url: text(),
      back_model_image_url: text(),
    })
    .openapi("SupplierAProduct"),
);

export const supplierAGroupSchema = schemaOnce(() =>
  z
    .object({
      style: z.string().nullable().openapi({ description: "The style token taken from q (null when q holds none)", example: "PC54" }),
      products: z.array(supplierAProductSchema()).openapi({ description: "Every catalog row (color × size) of the style" }),
      count: z.number().int(),
      summary: z.object({
        colors: z.array(z.string()).openapi({ description: "Distinct colors in the supplier's order" }),
        sizes: z.array(z.string()).openapi({ description: "Distinct sizes ordered by the supplier's size index" }),
        piece_price: z
          .object({ min: z.string(), max: z.string() })
          .nullable()
          .openapi({ description: "Piece-price range (exact decimal strings)" }),
      }),
    })
    .openapi("SupplierAGroup"),
);

export const SKIP_REASONS = [
  "blank_query",
  "no_style_token",
  "integration_missing",
  "integration_disabled",
  "credentials_incomplete",
  "timeout",
  "unreachable",
  "upstream_status",
  "auth_failed",
  "bad_response",
  "upstream_fault",
  "upstream_error",
  "source_error",
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const skippedSchema = schemaOnce(() =>
  z
    .object({
      source: z.enum(SEARCH_SOURCES),
      reason: z.enum(SKIP_REASONS),
      message: z.string().openapi({ example: "The supplier did not answer within the time limit" }),
    })
    .openapi("SkippedSource"),
);

export const searchResponseSchema = schemaOnce(() =>
  z
    .object({
      query: z.string().openapi({ description: "The search text used (q, trimmed)", example: "pc54 navy" }),
      local_items: z.array(catalogItemSchema()),
      supplier_b_styles: z.array(supplierBStyleSchema()),
      supplier_a: supplierAGroupSchema(),
      invoice_lines: z.array(invoiceLineSchema()),
      skipped: z.array(skippedSchema()).openapi({
        description:
          "Included sources that were not searched or whose lookup failed (their groups are empty), each with a reason: " +
          "`blank_query` (q blank: only the local sample runs), `no_style_token` (supplier_a: q holds no style token), " +
          "`integration_missing` / `integration_disabled` / `credentials_incomplete`, `timeout`, `unreachable`, " +
          "`upstream_status` (unexpected HTTP status), `auth_failed`, `bad_response` (malformed or unexpected body), " +
          "`upstream_fault` (SOAP fault), `upstream_error` (error reported inside the answer), `source_error` (our storage failed). " +
          "A source that answered with no matches is not listed.",
      }),
    })
    .openapi("ProductSearch"),
);

export const emptySupplierA = (style: string | null = null): z.infer<ReturnType<typeof supplierAGroupSchema>> => ({
  style,
  products: [],
  count: 0,
  summary: { colors: [], sizes: [], piece_price: null },
});
