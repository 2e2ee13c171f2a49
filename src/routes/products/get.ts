import { z } from "@hono/zod-openapi";
import { ApiError, invalid, notFound } from "../../http/errors";
import { createAuthRoute, intId, jsonContent, type Router } from "../../http/openapi";
import { DEFAULT_SOURCE_TIMEOUT_MS } from "../../platform/config";
import type { Db } from "../../platform/db";
import type { Logger } from "../../platform/logger";
import { SupplierError, withDeadline } from "../../suppliers/http";
import { loadIntegrations, type Provider, type SupplierConfig, UNAVAILABLE_MESSAGES } from "../../suppliers/integrations";
import { getProductInfo, styleResult } from "../../suppliers/supplier-a";
import { getProducts, type SupplierBQuery } from "../../suppliers/supplier-b";
import { findLiveInvoiceLine } from "./queries";
import { invoiceLineSchema, serializeInvoiceLine, supplierAGroupSchema, supplierBColorSchema } from "./schema";

const SOURCES = ["supplier_a", "supplier_b", "invoice_item"] as const;

const param = (name: string, description: string, example?: string) =>
  z
    .string()
    .max(100)
    .optional()
    .openapi({ param: { name, in: "query" }, description, example });

const route = createAuthRoute({
  method: "get",
  // Asks the company's supplier integrations (supplier_a, supplier_b) over the network.
  reaches: ["suppliers"],
  path: "/products/{source}",
  operationId: "getProduct",
  tags: ["Products"],
  summary: "Fetch product information from one source",
  description:
    "- `supplier_a`: every catalog row (color × size) of `style` (required; uppercased), optionally narrowed by `color` and/or `size` " +
    "(the supplier's names, e.g. `Navy`, `XL`), with the same summary as in search. An unknown style answers 200 with no products.\n" +
    "- `supplier_b`: the supplier's SKU rows grouped by color. `sku` fetches one SKU; otherwise `styleId` (alias `styleid`, or `style`) " +
    "is the supplier's numeric style id and fetches the whole style. When `sku` is given the style parameters are ignored. " +
    "Nothing found answers 200 with no products.\n" +
    "- `invoice_item`: the full invoice item row by `id`; it must belong to the caller's company and neither it nor its invoice " +
    "or order may be deleted, otherwise 404.\n\n" +
    "Missing or invalid parameters for the source: 400 naming them. Supplier integration missing, disabled or with incomplete " +
    "credentials: 409 `integration_unavailable` with `details` { source, reason }. The supplier failing or answering unusably: " +
    `502 \`upstream_error\` with \`details\` { source, reason }; no answer within the time budget (${DEFAULT_SOURCE_TIMEOUT_MS} ms by default): 504 \`upstream_error\`.`,
  request: {
    params: z.object({
      source: z.enum(SOURCES).openapi({ param: { name: "source", in: "path" }, example: "supplier_a" }),
    }),
    query: z.object({
      style: param("style", "supplier_a: the style (required). supplier_b: the style id when neither sku nor styleId is given", "PC54"),
      color: param("color", "supplier_a: only this color", "Navy"),
      size: param("size", "supplier_a: only this size", "XL"),
      sku: param("sku", "supplier_b: one SKU", "B00760033"),
      styleId: param("styleId", "supplier_b: the supplier's numeric style id", "39"),
      styleid: param("styleid", "Alias of styleId"),
      id: param("id", "invoice_item: the invoice item id (required)", "311"),
    }),
  },
  errors: [404, 409, 502, 504],
  responses: {
    200: {
      description: "The source's answer",
      content: jsonContent(() =>
        z.union([
          supplierAGroupSchema()
            .extend({
              source: z.literal("supplier_a"),
              query: z.object({ style: z.string(), color: z.string().nullable(), size: z.string().nullable() }),
            })
            .openapi("SupplierAProducts"),
          z
            .object({
              source: z.literal("supplier_b"),
              query: z.object({ sku: z.string().nullable(), style_id: z.string().nullable() }),
              products: z.array(supplierBColorSchema()),
            })
            .openapi("SupplierBProducts"),
          z.object({ source: z.literal("invoice_item"), item: invoiceLineSchema() }).openapi("InvoiceItemProduct"),
        ]),
      ),
    },
  },
});

const STYLE = /^[A-Za-z0-9][A-Za-z0-9 ._/-]{0,39}$/;
const SKU = /^[A-Za-z0-9._-]{1,64}$/;
const STYLE_ID = /^\d{1,10}$/;

const blankToUndefined = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

/** The company's enabled integration, or 409 saying why it is unusable. */
async function requireIntegration<P extends Provider>(db: Db, companyId: number, provider: P): Promise<SupplierConfig<P>> {
  const state = (await loadIntegrations(db, companyId, [provider]))[provider];
  if (!state.ok) {
    throw new ApiError(409, "integration_unavailable", UNAVAILABLE_MESSAGES[state.reason], { source: provider, reason: state.reason });
  }
  return state.config;
}

/** Calls the supplier under the time budget; failures become 502 / 504 without supplier text. */
async function callSupplier<T>(source: Provider, timeoutMs: number, logger: Logger, task: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await withDeadline(timeoutMs, task);
  } catch (e) {
    if (!(e instanceof SupplierError)) throw e;
    logger.warn("supplier call failed", { source, reason: e.reason, upstream_status: e.status });
    throw new ApiError(e.reason === "timeout" ? 504 : 502, "upstream_error", e.message, { source, reason: e.reason });
  }
}

export const registerGetProduct = (api: Router) =>
  api.openapi(route, async (c) => {
    const { source } = c.req.valid("param");
    const q = c.req.valid("query");
    const db = c.get("db");
    const auth = c.get("auth");
    const logger = c.get("logger");
    const timeoutMs = c.get("config").PRODUCT_SOURCE_TIMEOUT_MS;

    if (source === "invoice_item") {
      const raw = blankToUndefined(q.id);
      const id = intId(raw);
      if (id === undefined) {
        throw invalid("`id` must be a positive integer invoice item id", [
          { field: "id", message: raw ? "Must be a positive integer" : "Required" },
        ]);
      }
      const row = await findLiveInvoiceLine(db, auth.companyId, id);
      if (!row) throw notFound("Invoice item");
      return c.json({ source, item: serializeInvoiceLine(row) }, 200);
    }

    if (source === "supplier_a") {
      const style = blankToUndefined(q.style)?.toUpperCase();
      const color = blankToUndefined(q.color);
      const size = blankToUndefined(q.size);
      if (!style || !STYLE.test(style)) {
        throw invalid("`style` is required for supplier_a", [
          { field: "style", message: style ? "Not a style (letters, digits, . _ / -)" : "Required" },
        ]);
      }
      const config = await requireIntegration(db, auth.companyId, "supplier_a");
      const products = await callSupplier(source, timeoutMs, logger, (signal) => getProductInfo(config, { style, color, size }, signal));
      return c.json({ source, query: { style, color: color ?? null, size: size ?? null }, ...styleResult(style, products) }, 200);
    }

    const sku = blankToUndefined(q.sku);
    const styleId = blankToUndefined(q.styleId) ?? blankToUndefined(q.styleid) ?? blankToUndefined(q.style);
    let query: SupplierBQuery;
    if (sku) {
      if (!SKU.test(sku)) throw invalid("`sku` is not a supplier SKU", [{ field: "sku", message: "Letters, digits, . _ - only (max 64)" }]);
      query = { sku };
    } else if (styleId) {
      if (!STYLE_ID.test(styleId))
        throw invalid("`styleId` must be the supplier's numeric style id", [{ field: "styleId", message: "Must be a number" }]);
      query = { styleId };
    } else {
      throw invalid("supplier_b needs `sku` or `styleId`", [
        { field: "sku", message: "Required unless styleId is given" },
        { field: "styleId", message: "Required unless sku is given" },
      ]);
    }
    const config = await requireIntegration(db, auth.companyId, "supplier_b");
    const products = await callSupplier(source, timeoutMs, logger, (signal) => getProducts(config, query, signal));
    return c.json({ source, query: { sku: sku ?? null, style_id: sku ? null : styleId! }, products }, 200);
  });
