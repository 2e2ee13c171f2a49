import XMLBuilder from "fast-xml-builder";
import { XMLParser } from "fast-xml-parser";
import { type FakeServer, startFake } from "./server";

/**
 * Fake of SanMar's SOAP 1.1 product-info service (supplier_a), `getProductInfoByStyleColorSize`.
 * It checks the request the way the JAX-WS endpoint does: POST, text/xml, a SOAPAction header,
 * a SOAP 1.1 Envelope whose Body holds the operation element in the service namespace with
 * unqualified arg0 / arg1 children; protocol violations get a SOAP Client fault. Wrong
 * credentials answer errorOccured=true with an authentication message, an unknown style
 * errorOccured=true with "Invalid style" — both in-band with HTTP 200, as the service does.
 *
 * Failure scenarios (first path segment): status500 (an HTML 500 page), malformed (truncated XML),
 * garbage (well-formed XML that is not a SOAP answer), fault (a SOAP Server fault), unauthorized
 * (HTTP 401 from a gateway), slow, delay-<ms>.
 */
export const SERVICE_PATH = "/SanMarWebService/SanMarProductInfoServicePort";
const SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/";
const IMPL_NS = "http://impl.webservice.integration.sanmar.com/";

export interface SanMarCredentials {
  customer_number: string;
  username: string;
  password: string;
}

interface Row {
  style: string;
  title: string;
  brand: string;
  color: string;
  catalogColor: string;
  size: string;
  sizeIndex: number;
  piecePrice: string;
  casePrice: string;
}

const SIZES: [string, number][] = [
  ["S", 2],
  ["M", 3],
  ["L", 4],
  ["XL", 5],
  ["2XL", 6],
];

/** Every color × size row of one style. */
const style = (
  style: string,
  title: string,
  brand: string,
  colors: string[],
  sizes: [string, number][],
  price: (size: string) => [string, string],
): Row[] =>
  colors.flatMap((color) =>
    sizes.map(([size, sizeIndex]) => {
      const [piecePrice, casePrice] = price(size);
      return { style, title, brand, color, catalogColor: color.replace(/\s+/g, ""), size, sizeIndex, piecePrice, casePrice };
    }),
  );

/** PC54 (3 colors × 5 sizes, 2XL dearer), ST350 (2 colors × 4 sizes) and Gildan 2000 (2 colors × 3 sizes). */
export const CATALOG: Row[] = [
  ...style("PC54", "Port & Company Core Cotton Tee. PC54", "Port & Company", ["Navy", "Jet Black", "Athletic Heather"], SIZES, (size) =>
    size === "2XL" ? ["6.48", "5.48"] : ["4.18", "3.18"],
  ),
  ...style("ST350", "Sport-Tek PosiCharge Competitor Tee. ST350", "Sport-Tek", ["True Royal", "Black"], SIZES.slice(0, 4), () => [
    "7.98",
    "6.98",
  ]),
  ...style("2000", "Gildan Ultra Cotton 100% US Cotton T-Shirt. 2000", "Gildan", ["White", "Sport Grey"], SIZES.slice(1, 4), () => [
    "3.7",
    "2.99",
  ]),
];

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", parseTagValue: false, trimValues: true });
const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", suppressEmptyNode: true });

const envelope = (body: unknown) =>
  builder.build({ "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" }, "S:Envelope": { "@_xmlns:S": SOAP_NS, "S:Body": body } });

const fault = (code: "S:Client" | "S:Server", text: string) => envelope({ "S:Fault": { faultcode: code, faultstring: text } });

const answer = (ret: unknown) => envelope({ "ns2:getProductInfoByStyleColorSizeResponse": { "@_xmlns:ns2": IMPL_NS, return: ret } });

function toEntry(r: Row) {
  const uniqueKey = `${r.style}-${r.catalogColor}-${r.sizeIndex}`;
  return {
    productBasicInfo: {
      availableSizes: "Adult Sizes: S-2XL",
      brandName: r.brand,
      caseSize: "72",
      catalogColor: r.catalogColor,
      category: "T-Shirts",
      color: r.color,
      inventoryKey: `${r.style}-${r.catalogColor}`,
      pieceWeight: "0.38",
      productDescription: "5.4-ounce, 100% cotton & a classic fit.",
      productStatus: "Active",
      productTitle: r.title,
      size: r.size,
      sizeIndex: String(r.sizeIndex),
      style: r.style,
      uniqueKey,
    },
    productImageInfo: {
      colorProductImage: `https://cdnm.sanmar.com/imglib/mresjpg/${r.style}_${r.catalogColor}_model_front.jpg`,
      colorSquareImage: `https://cdnm.sanmar.com/swatch/gifs/${r.catalogColor}.gif`,
      productImage: `https://cdnm.sanmar.com/catalog/images/${r.style}.jpg`,
    },
    productPriceInfo: { casePrice: r.casePrice, dozenPrice: r.piecePrice, piecePrice: r.piecePrice, priceCode: "A" },
  };
}

/** Namespace URI bound to `prefix` on the element or the envelope. */
const nsOf = (prefix: string, ...elements: any[]) => elements.map((e) => e?.[`@_xmlns:${prefix}`]).find(Boolean);

/** Reads the request as the service would; a string is a protocol violation (→ Client fault). */
function readRequest(body: string): { arg0: any; arg1: any } | string {
  let doc: any;
  try {
    doc = parser.parse(body);
  } catch {
    return "Unable to parse the request";
  }
  const envKey = Object.keys(doc).find((k) => k.endsWith(":Envelope"));
  if (!envKey) return "No SOAP Envelope";
  const envPrefix = envKey.split(":")[0];
  const env = doc[envKey];
  if (nsOf(envPrefix, env) !== SOAP_NS) return "Envelope is not SOAP 1.1";
  const bodyEl = env[`${envPrefix}:Body`];
  if (!bodyEl) return "No SOAP Body";
  const opKey = Object.keys(bodyEl).find((k) => k.split(":").pop() === "getProductInfoByStyleColorSize");
  if (!opKey) return "Cannot find dispatch method";
  const op = bodyEl[opKey];
  const opPrefix = opKey.includes(":") ? opKey.split(":")[0] : "";
  const opNs = opPrefix ? nsOf(opPrefix, op, env) : op["@_xmlns"];
  if (opNs !== IMPL_NS) return "Cannot find dispatch method (wrong namespace)";
  if (typeof op.arg0 !== "object" || typeof op.arg1 !== "object") return "Missing arg0/arg1 (children must be unqualified)";
  return { arg0: op.arg0, arg1: op.arg1 };
}

export interface FakeSupplierA extends FakeServer {
  /** The integration base URL (full service endpoint) for a scenario. */
  url(scenario?: string): string;
  allow(credentials: SanMarCredentials): void;
}

export async function startFakeSupplierA(): Promise<FakeSupplierA> {
  const accounts = new Set<string>();
  const key = (c: Partial<SanMarCredentials>) => JSON.stringify([c.customer_number, c.username, c.password]);
  const server = await startFake(({ scenario, req, res, path, body }) => {
    const xml = (status: number, text: string) => void res.writeHead(status, { "content-type": "text/xml; charset=utf-8" }).end(text);
    if (path !== SERVICE_PATH) return void res.writeHead(404, { "content-type": "text/html" }).end("<html>Not Found</html>");
    if (req.method !== "POST") return void res.writeHead(405).end();
    if (!String(req.headers["content-type"]).startsWith("text/xml")) return void res.writeHead(415).end();
    if (req.headers.soapaction === undefined) return xml(500, fault("S:Client", "SOAPAction header is required"));

    switch (scenario) {
      case "status500":
        return void res.writeHead(500, { "content-type": "text/html" }).end("<html><body>Internal Server Error</body></html>");
      case "unauthorized":
        return void res.writeHead(401, { "content-type": "text/html" }).end("<html>401 Unauthorized</html>");
      case "malformed":
        return xml(200, answer({ errorOccured: "false", listResponse: CATALOG.slice(0, 2).map(toEntry) }).slice(0, 400));
      case "garbage":
        return xml(200, '<?xml version="1.0"?><html><body><p>Service temporarily unavailable</p></body></html>');
      case "fault":
        return xml(500, fault("S:Server", "java.lang.NullPointerException"));
    }

    const request = readRequest(body);
    if (typeof request === "string") return xml(500, fault("S:Client", request));
    const { arg0, arg1 } = request;
    if (
      !accounts.has(key({ customer_number: arg1.sanMarCustomerNumber, username: arg1.sanMarUserName, password: arg1.sanMarUserPassword }))
    ) {
      return xml(200, answer({ errorOccured: "true", message: "ERROR: User authentication failed" }));
    }
    const style = String(arg0.style ?? "").toUpperCase();
    const rows = CATALOG.filter((r) => r.style === style);
    if (!style || !rows.length) return xml(200, answer({ errorOccured: "true", message: `ERROR: Invalid style : ${arg0.style ?? ""}` }));
    const matching = rows.filter(
      (r) => (!arg0.color || r.color === arg0.color || r.catalogColor === arg0.color) && (!arg0.size || r.size === arg0.size),
    );
    return xml(200, answer({ errorOccured: "false", listResponse: matching.map(toEntry), message: "Product Info sent successfully." }));
  });
  return {
    ...server,
    url: (scenario = "ok") => `${server.origin}/${scenario}${SERVICE_PATH}`,
    allow: (c) => void accounts.add(key(c)),
  };
}
