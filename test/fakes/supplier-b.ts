import { type FakeServer, startFake } from "./server";

/**
 * Fake of S&S Activewear's REST API v2 (supplier_b): HTTP Basic auth (account number : API key,
 * 401 otherwise), `GET /v2/styles?search=`, `GET /v2/products/?styleid=`, `GET /v2/products/{sku}`,
 * JSON arrays of flat rows with relative image paths; an unknown SKU or style id is a 404.
 *
 * Failure scenarios (first path segment): badimages (image links that are not URLs), status500, malformed (truncated JSON), garbage (JSON of the
 * wrong shape), unauthorized (401 whatever the credentials), slow, delay-<ms>.
 */
export interface SsCredentials {
  account_number: string;
  api_key: string;
}

export const STYLES = [
  {
    styleID: 39,
    partNumber: "00760",
    brandName: "Gildan",
    styleName: "2000",
    title: "Ultra Cotton T-Shirt",
    description: "<p>6.0 oz., pre-shrunk 100% cotton</p>",
    baseCategory: "T-Shirts",
    categories: "21,57,71,79,87",
    catalogPageNumber: "182",
    newStyle: false,
    comparableGroup: 7,
    companionGroup: 2,
    brandImage: "Images/Brand/35_fm.jpg",
    styleImage: "Images/Style/39_fm.jpg",
  },
  {
    styleID: 5075,
    partNumber: "B3001",
    brandName: "BELLA + CANVAS",
    styleName: "3001",
    title: "Unisex Jersey Tee",
    description: "<p>4.2 oz., 100% Airlume combed and ring-spun cotton</p>",
    baseCategory: "T-Shirts",
    categories: "21,57",
    catalogPageNumber: "12",
    newStyle: true,
    comparableGroup: 7,
    companionGroup: 4,
    brandImage: "Images/Brand/173_fm.jpg",
    styleImage: "Images/Style/5075_fm.jpg",
  },
];

const COLORS = [
  { colorName: "Navy", colorCode: "32" },
  { colorName: "Black", colorCode: "36" },
];
const SIZES = [
  { sizeName: "S", sizeOrder: "B2", piecePrice: 3.12 },
  { sizeName: "M", sizeOrder: "B3", piecePrice: 3.12 },
  { sizeName: "XL", sizeOrder: "B5", piecePrice: 3.12 },
  { sizeName: "2XL", sizeOrder: "B6", piecePrice: 4.605 },
];

/** Flat SKU rows as S&S sends them (sizes deliberately not in size order). */
export const PRODUCTS = STYLES.flatMap((style) =>
  COLORS.flatMap((color, ci) =>
    [...SIZES].reverse().map((size, si) => ({
      sku: `B${style.partNumber.slice(-5)}${color.colorCode}${si}`,
      gtin: "00821780008045",
      styleID: style.styleID,
      brandName: style.brandName,
      styleName: style.styleName,
      colorName: color.colorName,
      colorCode: color.colorCode,
      colorSwatchImage: `Images/ColorSwatch/${style.styleID}${ci}_fm.jpg`,
      colorFrontImage: `Images/Color/${style.styleID}${ci}_f_fm.jpg`,
      colorBackImage: `Images/Color/${style.styleID}${ci}_b_fm.jpg`,
      sizeName: size.sizeName,
      sizeCode: String(si),
      sizeOrder: size.sizeOrder,
      caseQty: 72,
      unitWeight: 0.42,
      piecePrice: size.piecePrice,
      dozenPrice: size.piecePrice,
      casePrice: 2.5,
      customerPrice: 2.89,
      qty: 300,
      warehouses: [
        {
          warehouseAbbr: "IL",
          skuID: 1000 + si,
          qty: 180,
          closeout: false,
          dropship: false,
          excludeFreeFreight: false,
          fullCaseOnly: false,
          returnable: true,
        },
        {
          warehouseAbbr: "NV",
          skuID: 1000 + si,
          qty: 120,
          closeout: false,
          dropship: false,
          excludeFreeFreight: false,
          fullCaseOnly: false,
          returnable: true,
        },
      ],
    })),
  ),
);

export interface FakeSupplierB extends FakeServer {
  /** The integration base URL (API origin) for a scenario. */
  url(scenario?: string): string;
  allow(credentials: SsCredentials): void;
}

export async function startFakeSupplierB(): Promise<FakeSupplierB> {
  const accounts = new Set<string>();
  const server = await startFake(({ scenario, req, res, url, path }) => {
    const json = (status: number, body: unknown) =>
      void res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
    const [scheme, token] = String(req.headers.authorization ?? "").split(" ");
    const user = scheme === "Basic" && token ? Buffer.from(token, "base64").toString("utf8") : "";
    if (scenario === "unauthorized" || !accounts.has(user)) {
      res.setHeader("www-authenticate", 'Basic realm="api.ssactivewear.com"');
      return json(401, { message: "Authorization has been denied for this request." });
    }
    if (req.method !== "GET") return json(405, { message: "The requested resource does not support this method." });
    switch (scenario) {
      case "status500":
        return json(500, { message: "An error has occurred." });
      case "malformed":
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(STYLES).slice(0, 120));
      case "garbage":
        return json(200, { unexpected: "shape" });
    }
    // badimages: the right shape, but image links that are not URLs (supplier data is untrusted).
    const bad = ["//", "http:", "http://[::1", "javascript:alert(1)"];
    const mangle = <T extends object>(rows: T[]): T[] =>
      scenario === "badimages"
        ? rows.map((r, i) => ({
            ...r,
            styleImage: bad[i % 4],
            colorSwatchImage: bad[(i + 1) % 4],
            colorFrontImage: bad[(i + 2) % 4],
            colorBackImage: bad[(i + 3) % 4],
          }))
        : rows;

    const search = url.searchParams.get("search");
    if (path === "/v2/styles" && search !== null) {
      const s = search.toLowerCase();
      return json(
        200,
        mangle(STYLES.filter((st) => [st.brandName, st.styleName, st.title, st.partNumber].some((f) => f.toLowerCase().includes(s)))),
      );
    }
    if (path === "/v2/products/" && url.searchParams.has("styleid")) {
      const rows = mangle(PRODUCTS.filter((p) => String(p.styleID) === url.searchParams.get("styleid")));
      return rows.length ? json(200, rows) : json(404, []);
    }
    const sku = /^\/v2\/products\/([^/]+)$/.exec(path)?.[1];
    if (sku) {
      const rows = mangle(PRODUCTS.filter((p) => p.sku === decodeURIComponent(sku)));
      return rows.length ? json(200, rows) : json(404, []);
    }
    return json(404, { message: "No HTTP resource was found that matches the request URI." });
  });
  return {
    ...server,
    url: (scenario = "ok") => `${server.origin}/${scenario}`,
    allow: (c) => void accounts.add(`${c.account_number}:${c.api_key}`),
  };
}
