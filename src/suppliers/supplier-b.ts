/**
 * supplier_b adapter: S&S Activewear's REST API v2 (JSON). HTTP Basic auth with the account
 * number as user and the API key as password. `GET /v2/styles?search=` finds styles;
 * `GET /v2/products/?styleid=` and `GET /v2/products/{sku}` return flat rows, one per SKU
 * (color × size, with prices, stock and per-warehouse stock), which this adapter groups by color.
 * S&S answers 404 when nothing matches: that is an empty result, not a failure.
 */
import { z } from "@hono/zod-openapi";
import { schemaOnce } from "../http/schema-once";
import { basicAuth } from "../platform/basic-auth";
import { priceFrom as money } from "../platform/money";
import { fetchText, imageUrl, SupplierError } from "./http";
import type { SupplierConfig } from "./integrations";

/** S&S returns image paths relative to its web site. */
export const IMAGE_ORIGIN = "https://www.ssactivewear.com/";

/** At most this many styles from one search (S&S returns every match, unpaged). */
export const MAX_STYLES = 25;

const optText = schemaOnce(() =>
  z
    .union([z.string(), z.number()])
    .nullish()
    .transform((v) => (v === null || v === undefined || v === "" ? null : String(v))),
);
const optNumber = schemaOnce(() => z.number().nullish());

const styleSchema = schemaOnce(() =>
  z.looseObject({
    styleID: z.number().int(),
    partNumber: optText(),
    brandName: optText(),
    styleName: optText(),
    title: optText(),
    baseCategory: optText(),
    styleImage: optText(),
    newStyle: z.boolean().nullish(),
  }),
);

const warehouseSchema = schemaOnce(() => z.looseObject({ warehouseAbbr: optText(), qty: optNumber() }));

const productSchema = schemaOnce(() =>
  z.looseObject({
    sku: z.string().min(1),
    styleID: z.number().int(),
    brandName: optText(),
    styleName: optText(),
    colorName: optText(),
    colorCode: optText(),
    colorSwatchImage: optText(),
    colorFrontImage: optText(),
    colorBackImage: optText(),
    sizeName: optText(),
    sizeOrder: optText(),
    piecePrice: optNumber(),
    dozenPrice: optNumber(),
    casePrice: optNumber(),
    customerPrice: optNumber(),
    qty: optNumber(),
    warehouses: z.array(warehouseSchema()).nullish(),
  }),
);

const image = (path: string | null) => imageUrl(path, IMAGE_ORIGIN);

function authHeader(config: SupplierConfig<"supplier_b">): string {
  const { account_number, api_key } = config.credentials;
  return basicAuth(account_number, api_key);
}

/** GET <base>/v2/<path>; a JSON array of rows, [] on 404, SupplierError otherwise. */
async function getRows<S extends z.ZodType>(config: SupplierConfig<"supplier_b">, path: string, schema: S, signal: AbortSignal) {
  let base = config.baseUrl;
  while (base.endsWith("/")) base = base.slice(0, -1);
  const url = `${base}/v2/${path}`;
  const res = await fetchText(url, { headers: { authorization: authHeader(config), accept: "application/json" } }, signal);
  if (res.status === 404) return [];
  if (res.status === 401 || res.status === 403) throw new SupplierError("auth_failed", res.status);
  if (res.status !== 200) throw new SupplierError("upstream_status", res.status);
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    throw new SupplierError("bad_response", res.status);
  }
  const rows = z.array(schema).safeParse(json);
  if (!rows.success) throw new SupplierError("bad_response", res.status);
  return rows.data as z.infer<S>[];
}

function toStyle(s: z.infer<ReturnType<typeof styleSchema>>) {
  return {
    style_id: s.styleID,
    part_number: s.partNumber,
    brand_name: s.brandName,
    style_name: s.styleName,
    title: s.title,
    base_category: s.baseCategory,
    image_url: image(s.styleImage),
    new_style: s.newStyle ?? false,
  };
}
export type SupplierBStyle = ReturnType<typeof toStyle>;

/** Style search; the first MAX_STYLES matches in the supplier's order. */
export async function searchStyles(config: SupplierConfig<"supplier_b">, q: string, signal: AbortSignal): Promise<SupplierBStyle[]> {
  const rows = await getRows(config, `styles?search=${encodeURIComponent(q)}`, styleSchema(), signal);
  return rows.slice(0, MAX_STYLES).map(toStyle);
}

export type SupplierBQuery = { sku: string } | { styleId: string };

/** The SKU's row or every row of the style, grouped by color. */
export async function getProducts(config: SupplierConfig<"supplier_b">, query: SupplierBQuery, signal: AbortSignal) {
  const path = "sku" in query ? `products/${encodeURIComponent(query.sku)}` : `products/?styleid=${encodeURIComponent(query.styleId)}`;
  return groupByColor(await getRows(config, path, productSchema(), signal));
}

type ProductRow = z.infer<ReturnType<typeof productSchema>>;

/** Flat SKU rows → one entry per color (first-seen order), sizes sorted by the supplier's sizeOrder. */
export function groupByColor(rows: ProductRow[]) {
  const groups = new Map<string, ReturnType<typeof newGroup>>();
  for (const row of rows) {
    const key = `${row.styleID}|${row.colorCode ?? row.colorName ?? ""}`;
    let group = groups.get(key);
    if (!group) {
      group = newGroup(row);
      groups.set(key, group);
    }
    group.sizes.push({
      sku: row.sku,
      size_name: row.sizeName,
      size_order: row.sizeOrder,
      piece_price: money(row.piecePrice),
      dozen_price: money(row.dozenPrice),
      case_price: money(row.casePrice),
      customer_price: money(row.customerPrice),
      qty: row.qty ?? null,
      warehouses: (row.warehouses ?? []).map((w) => ({ warehouse: w.warehouseAbbr, qty: w.qty ?? null })),
    });
  }
  const order = (s: string | null) => s ?? "\uffff";
  for (const group of groups.values()) {
    group.sizes.sort((a, b) => order(a.size_order).localeCompare(order(b.size_order), "en", { numeric: true }));
  }
  return [...groups.values()];
}

function newGroup(row: ProductRow) {
  return {
    style_id: row.styleID,
    brand_name: row.brandName,
    style_name: row.styleName,
    color_name: row.colorName,
    color_code: row.colorCode,
    color_swatch_image_url: image(row.colorSwatchImage),
    color_front_image_url: image(row.colorFrontImage),
    color_back_image_url: image(row.colorBackImage),
    sizes: [] as {
      sku: string;
      size_name: string | null;
      size_order: string | null;
      piece_price: string | null;
      dozen_price: string | null;
      case_price: string | null;
      customer_price: string | null;
      qty: number | null;
      warehouses: { warehouse: string | null; qty: number | null }[];
    }[],
  };
}
