/**
 * supplier_a adapter: SanMar's SOAP 1.1 product-information web service, operation
 * `getProductInfoByStyleColorSize` (document/literal, JAX-WS). Request: `arg0` { color?, size?, style }
 * and `arg1` { sanMarCustomerNumber, sanMarUserName, sanMarUserPassword } in the operation's namespace
 * http://impl.webservice.integration.sanmar.com/ (child elements unqualified), SOAPAction "" as the
 * WSDL declares. Answer: `return` { errorOccured, message, listResponse* } where each listResponse
 * carries productBasicInfo, productImageInfo and productPriceInfo for one style/color/size.
 * `errorOccured=true` with "Invalid style" means the style does not exist: an empty result, not a failure.
 */
import { z } from "@hono/zod-openapi";
import { parseXml as parseDocument, XmlElement } from "@rgrove/parse-xml";
import { schemaOnce } from "../http/schema-once";
import { priceFrom as money, priceRange } from "../platform/money";
import { fetchText, imageUrl, SupplierError, type UpstreamResponse } from "./http";
import type { SupplierConfig } from "./integrations";

export const SOAP_ENVELOPE_NS = "http://schemas.xmlsoap.org/soap/envelope/";
export const SANMAR_IMPL_NS = "http://impl.webservice.integration.sanmar.com/";
export const OPERATION = "getProductInfoByStyleColorSize";

/**
 * Style-token rule: the first whitespace-separated token of q that, after trimming leading and
 * trailing punctuation, matches /^[A-Z]{0,4}\d{2,5}[A-Z]{0,3}$/i (up to 4 letters, 2–5 digits, up
 * to 3 letters), uppercased. "pc54 navy" → PC54, "gildan g500" → G500, "5000" → 5000,
 * "st350, black" → ST350; "black hoodie" → none.
 */
export const STYLE_TOKEN = /^[A-Z]{0,4}\d{2,5}[A-Z]{0,3}$/i;

const ALPHANUMERIC = /[A-Za-z0-9]/;

/** `raw` without its leading and trailing characters that are not letters or digits, in time linear in its length. */
function trimToAlphanumeric(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (start < end && !ALPHANUMERIC.test(raw[start])) start++;
  while (end > start && !ALPHANUMERIC.test(raw[end - 1])) end--;
  return raw.slice(start, end);
}

export function extractStyleToken(q: string): string | null {
  for (const raw of q.split(/\s+/)) {
    const token = trimToAlphanumeric(raw);
    if (STYLE_TOKEN.test(token)) return token.toUpperCase();
  }
  return null;
}

export interface SupplierAQuery {
  style: string;
  color?: string;
  size?: string;
}

const XML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
const escapeXml = (value: string) => value.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);
/** One unqualified child element per non-empty value, in the given order. */
const children = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .map(([name, value]) => (value ? `<${name}>${escapeXml(value)}</${name}>` : ""))
    .join("");

/** The SOAP 1.1 request envelope; every value is escaped. Absent filters are omitted (minOccurs=0). */
export function buildEnvelope(query: SupplierAQuery, config: SupplierConfig<"supplier_a">): string {
  const { customer_number, username, password } = config.credentials;
  const arg0 = children({ color: query.color, size: query.size, style: query.style });
  const arg1 = children({ sanMarCustomerNumber: customer_number, sanMarUserName: username, sanMarUserPassword: password });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="${SOAP_ENVELOPE_NS}" xmlns:impl="${SANMAR_IMPL_NS}"><soapenv:Header/><soapenv:Body>` +
    `<impl:${OPERATION}><arg0>${arg0}</arg0><arg1>${arg1}</arg1></impl:${OPERATION}>` +
    "</soapenv:Body></soapenv:Envelope>"
  );
}

type Plain = string | { [name: string]: Plain | Plain[] };
const localName = (name: string) => name.slice(name.indexOf(":") + 1);

/**
 * An element as a plain value: its trimmed text when it has no child elements, otherwise its child
 * elements by local name (namespace prefix dropped); a repeated name, and listResponse always, becomes
 * an array. Attributes and comments are not read.
 */
function toPlain(element: XmlElement): Plain {
  const elements = element.children.filter((c) => c instanceof XmlElement);
  if (!elements.length) return element.text.trim();
  const out = new Map<string, Plain | Plain[]>();
  for (const child of elements) {
    const name = localName(child.name);
    const value = toPlain(child);
    const seen = out.get(name);
    if (seen === undefined) out.set(name, name === "listResponse" ? [value] : value);
    else if (Array.isArray(seen)) seen.push(value);
    else out.set(name, [seen, value]);
  }
  // fromEntries defines own properties: an element named __proto__ stays data.
  return Object.fromEntries(out);
}

/**
 * The document as { rootLocalName: plain value }, or undefined unless it is well-formed XML without a
 * DTD (SOAP 1.1 forbids one). A named entity XML does not define (&nbsp;) is kept as written:
 * product descriptions may carry HTML ones.
 */
// biome-ignore lint/suspicious/noExplicitAny: parsed SOAP XML is walked field by field and checked where read
function parseXml(text: string): any {
  if (text.includes("<!DOCTYPE")) return undefined;
  try {
    const { root } = parseDocument(text, { ignoreUndefinedEntities: true });
    return root ? { [localName(root.name)]: toPlain(root) } : undefined;
  } catch {
    return undefined;
  }
}

const leaf = schemaOnce(() => z.string().optional());
/** An element with children; an empty element (<x/>) parses as "" and means no children. */
const element = <T extends z.ZodRawShape>(shape: T) => z.preprocess((v) => (v === "" ? {} : v), z.looseObject(shape));

const entrySchema = schemaOnce(() =>
  z.looseObject({
    productBasicInfo: element({
      style: z.string().min(1),
      productTitle: leaf(),
      productDescription: leaf(),
      brandName: leaf(),
      category: leaf(),
      color: leaf(),
      catalogColor: leaf(),
      size: leaf(),
      sizeIndex: leaf(),
      uniqueKey: leaf(),
      inventoryKey: leaf(),
      productStatus: leaf(),
      caseSize: leaf(),
      availableSizes: leaf(),
    }),
    productImageInfo: element({
      productImage: leaf(),
      colorProductImage: leaf(),
      colorSquareImage: leaf(),
      colorSwatchImage: leaf(),
      frontModel: leaf(),
      backModel: leaf(),
    }).optional(),
    productPriceInfo: element({
      piecePrice: leaf(),
      dozenPrice: leaf(),
      casePrice: leaf(),
      pieceSalePrice: leaf(),
      caseSalePrice: leaf(),
      saleStartDate: leaf(),
      saleEndDate: leaf(),
    }).optional(),
  }),
);

const returnSchema = schemaOnce(() =>
  z.looseObject({
    errorOccured: z.enum(["true", "false"]),
    message: leaf(),
    listResponse: z.array(entrySchema()).optional(),
  }),
);

const str = (v: string | undefined) => (v?.trim() ? v.trim() : null);
const int = (v: string | undefined) => (v && /^\d{1,9}$/.test(v.trim()) ? Number(v.trim()) : null);

function toProduct(entry: z.infer<ReturnType<typeof entrySchema>>) {
  const b = entry.productBasicInfo;
  const i = entry.productImageInfo ?? {};
  const p = entry.productPriceInfo ?? {};
  return {
    style: b.style.trim(),
    title: str(b.productTitle),
    description: str(b.productDescription),
    brand_name: str(b.brandName),
    category: str(b.category),
    color: str(b.color),
    catalog_color: str(b.catalogColor),
    size: str(b.size),
    size_index: int(b.sizeIndex),
    unique_key: str(b.uniqueKey),
    inventory_key: str(b.inventoryKey),
    status: str(b.productStatus),
    case_size: int(b.caseSize),
    piece_price: money(p.piecePrice),
    dozen_price: money(p.dozenPrice),
    case_price: money(p.casePrice),
    sale_piece_price: money(p.pieceSalePrice),
    sale_case_price: money(p.caseSalePrice),
    sale_start_date: str(p.saleStartDate),
    sale_end_date: str(p.saleEndDate),
    image_url: imageUrl(str(i.productImage)),
    color_image_url: imageUrl(str(i.colorProductImage)),
    swatch_image_url: imageUrl(str(i.colorSquareImage) ?? str(i.colorSwatchImage)),
    front_model_image_url: imageUrl(str(i.frontModel)),
    back_model_image_url: imageUrl(str(i.backModel)),
  };
}

export type SupplierAProduct = ReturnType<typeof toProduct>;

const AUTH_MESSAGE = /authenticat|password|user ?name|not authori[sz]ed|customer number/i;

/** Reads the SOAP answer; throws SupplierError for anything but a product list or "Invalid style". */
export function parseProductInfoResponse(res: UpstreamResponse): SupplierAProduct[] {
  if (res.status === 401 || res.status === 403) throw new SupplierError("auth_failed", res.status);
  // SOAP 1.1 sends faults with HTTP 500; any other non-200 status is not a protocol answer.
  if (res.status !== 200 && res.status !== 500) throw new SupplierError("upstream_status", res.status);
  const body = parseXml(res.text)?.Envelope?.Body;
  if (body && typeof body === "object" && "Fault" in body) throw new SupplierError("upstream_fault", res.status);
  if (res.status === 500) throw new SupplierError("upstream_status", 500);
  const parsed = returnSchema().safeParse(body?.[`${OPERATION}Response`]?.return);
  if (!parsed.success) throw new SupplierError("bad_response", res.status);
  const ret = parsed.data;
  if (ret.errorOccured === "true") {
    const message = ret.message ?? "";
    if (/invalid style/i.test(message)) return [];
    throw new SupplierError(AUTH_MESSAGE.test(message) ? "auth_failed" : "upstream_error");
  }
  return (ret.listResponse ?? []).map(toProduct);
}

/** Every catalog row for the style (optionally one color and/or size). */
export async function getProductInfo(config: SupplierConfig<"supplier_a">, query: SupplierAQuery, signal: AbortSignal) {
  const res = await fetchText(
    config.baseUrl,
    {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8", soapaction: '""', accept: "text/xml" },
      body: buildEnvelope(query, config),
    },
    signal,
  );
  return parseProductInfoResponse(res);
}

/** The `supplier_a` search group: the style's rows plus colors, sizes (by size index) and the piece-price range. */
export function styleResult(style: string | null, products: SupplierAProduct[]) {
  const colors = [...new Set(products.map((p) => p.color).filter((c): c is string => c !== null))];
  const bySize = new Map<string, number>();
  for (const p of products) {
    if (p.size === null) continue;
    const index = p.size_index ?? Number.MAX_SAFE_INTEGER;
    bySize.set(p.size, Math.min(bySize.get(p.size) ?? index, index));
  }
  const sizes = [...bySize.entries()].sort((a, b) => a[1] - b[1]).map(([size]) => size);
  return {
    style,
    products,
    count: products.length,
    summary: { colors, sizes, piece_price: priceRange(products.map((p) => p.piece_price)) },
  };
}
