import { describe, expect, it } from "vitest";
import { PRODUCTS } from "../../../test/fakes/supplier-b";
import { asRequest, expectError, newCompany, sql, type TestCompany, workerLogLines } from "../../../test/support/api";
import { addOrder, connectSupplierA, connectSupplierB, leaked, useFakeSuppliers } from "../../../test/support/products";

const fakes = useFakeSuppliers();
const secrets: object[] = [];
const responses: unknown[] = [];

/** Every fetch with one X-Request-Id, so two answers compare whole (an error body carries the id). */
async function fetchProduct(co: TestCompany, source: string, params: Record<string, string> = {}, requestId = "fetch-product") {
  const res = await co.get(`/products/${source}?${new URLSearchParams(params)}`, asRequest(requestId));
  responses.push(res.body);
  return res;
}

describe("GET /products/supplier_a", () => {
  it("returns every row of the style with a summary, narrowed by color and size", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a));

    const all = await fetchProduct(co, "supplier_a", { style: "pc54" });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ source: "supplier_a", query: { style: "PC54", color: null, size: null }, style: "PC54", count: 15 });
    expect(all.body.summary.sizes).toEqual(["S", "M", "L", "XL", "2XL"]);

    const narrowed = await fetchProduct(co, "supplier_a", { style: "PC54", color: "Navy", size: "2XL" });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.query).toEqual({ style: "PC54", color: "Navy", size: "2XL" });
    expect(narrowed.body.products).toHaveLength(1);
    expect(narrowed.body.products[0]).toMatchObject({ color: "Navy", size: "2XL", piece_price: "6.48" });
    expect(narrowed.body.summary).toEqual({ colors: ["Navy"], sizes: ["2XL"], piece_price: { min: "6.48", max: "6.48" } });
    const body = fakes.a.requests.at(-1)!.body;
    expect(body).toContain("<arg0><color>Navy</color><size>2XL</size><style>PC54</style></arg0>");
  });

  it("answers an unknown style with no products", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a));
    const res = await fetchProduct(co, "supplier_a", { style: "ZZ999" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ style: "ZZ999", products: [], count: 0 });
  });

  it("requires style (400 before any integration check)", async () => {
    const co = await newCompany();
    for (const params of [{}, { style: "  " }, { color: "Navy" }] as Record<string, string>[]) {
      const err = expectError(await fetchProduct(co, "supplier_a", params), 400, "invalid_request");
      expect(err.details).toEqual([{ field: "style", message: "Required" }]);
    }
    expectError(await fetchProduct(co, "supplier_a", { style: "<x/>" }), 400, "invalid_request");
  });

  it("answers 409 integration_unavailable when the integration is missing or disabled", async () => {
    const co = await newCompany();
    const missing = expectError(await fetchProduct(co, "supplier_a", { style: "PC54" }), 409, "integration_unavailable");
    expect(missing.details).toEqual({ source: "supplier_a", reason: "integration_missing" });

    secrets.push(await connectSupplierA(co.companyId, fakes.a, "ok", { enabled: false }));
    const before = fakes.a.requests.length;
    const disabled = expectError(await fetchProduct(co, "supplier_a", { style: "PC54" }), 409, "integration_unavailable");
    expect(disabled.details).toEqual({ source: "supplier_a", reason: "integration_disabled" });
    expect(fakes.a.requests.length).toBe(before);
  });

  it.each([
    ["fault", "upstream_fault"],
    ["status500", "upstream_status"],
    ["malformed", "bad_response"],
    ["unauthorized", "auth_failed"],
  ])("answers 502 upstream_error when the supplier fails (%s)", async (scenario, reason) => {
    const co = await newCompany();
    secrets.push(await connectSupplierA(co.companyId, fakes.a, scenario));
    const err = expectError(await fetchProduct(co, "supplier_a", { style: "PC54" }), 502, "upstream_error");
    expect(err.details).toEqual({ source: "supplier_a", reason });
  });
});

describe("GET /products/supplier_b", () => {
  it("drops image links that are not http(s) URLs instead of failing (supplier data is untrusted)", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierB(co.companyId, fakes.b, "badimages"));
    for (const params of [{ styleId: "39" }, { sku: PRODUCTS[0].sku }] as Record<string, string>[]) {
      const res = await fetchProduct(co, "supplier_b", params);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      for (const group of res.body.products) {
        for (const key of ["color_swatch_image_url", "color_front_image_url", "color_back_image_url"]) expect(group[key]).toBeNull();
      }
    }
    const search = await co.get("/products/search?q=gildan&include=supplier_b");
    expect(search.status).toBe(200);
    expect(search.body.supplier_b_styles.length).toBeGreaterThan(0);
    for (const style of search.body.supplier_b_styles) expect(style.image_url).toBeNull();
  });

  it("groups a style's SKU rows by color, sizes in the supplier's size order, prices exact", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierB(co.companyId, fakes.b));
    for (const params of [{ styleId: "39" }, { styleid: "39" }, { style: "39" }] as Record<string, string>[]) {
      const res = await fetchProduct(co, "supplier_b", params);
      expect(res.status).toBe(200);
      expect(res.body.source).toBe("supplier_b");
      expect(res.body.query).toEqual({ sku: null, style_id: "39" });
      expect(res.body.products.map((p: any) => p.color_name)).toEqual(["Navy", "Black"]);
      const navy = res.body.products[0];
      expect(navy).toMatchObject({
        style_id: 39,
        brand_name: "Gildan",
        style_name: "2000",
        color_code: "32",
        color_swatch_image_url: "https://www.ssactivewear.com/Images/ColorSwatch/390_fm.jpg",
      });
      expect(navy.sizes.map((s: any) => s.size_name)).toEqual(["S", "M", "XL", "2XL"]);
      // 4.605 is 4.6049999… as a binary float; the exact decimal rounds to 4.61
      expect(navy.sizes.at(-1)).toMatchObject({ piece_price: "4.61", case_price: "2.50", customer_price: "2.89", qty: 300 });
      expect(navy.sizes[0].warehouses).toEqual([
        { warehouse: "IL", qty: 180 },
        { warehouse: "NV", qty: 120 },
      ]);
    }
    expect(fakes.b.requests.at(-1)!.path).toBe("/v2/products/?styleid=39");
  });

  it("fetches one SKU (sku wins over styleId); an unknown SKU has no products", async () => {
    const co = await newCompany();
    secrets.push(await connectSupplierB(co.companyId, fakes.b));
    const sku = PRODUCTS[0].sku;
    const res = await fetchProduct(co, "supplier_b", { sku, styleId: "5075" });
    expect(res.status).toBe(200);
    expect(res.body.query).toEqual({ sku, style_id: null });
    expect(res.body.products).toHaveLength(1);
    expect(res.body.products[0].sizes.map((s: any) => s.sku)).toEqual([sku]);
    expect(fakes.b.requests.at(-1)!.path).toBe(`/v2/products/${sku}`);

    const unknown = await fetchProduct(co, "supplier_b", { sku: "B99999999" });
    expect(unknown.status).toBe(200);
    expect(unknown.body.products).toEqual([]);
  });

  it("requires sku or a numeric styleId", async () => {
    const co = await newCompany();
    const err = expectError(await fetchProduct(co, "supplier_b"), 400, "invalid_request");
    expect(err.details.map((d: any) => d.field)).toEqual(["sku", "styleId"]);
    expect(expectError(await fetchProduct(co, "supplier_b", { styleId: "PC54" }), 400, "invalid_request").details[0].field).toBe("styleId");
    expect(expectError(await fetchProduct(co, "supplier_b", { sku: "a/b" }), 400, "invalid_request").details[0].field).toBe("sku");
  });

  it("answers 409 when the integration is missing or disabled, 502 when the supplier rejects the credentials", async () => {
    const co = await newCompany();
    expect(expectError(await fetchProduct(co, "supplier_b", { styleId: "39" }), 409, "integration_unavailable").details.reason).toBe(
      "integration_missing",
    );
    secrets.push(await connectSupplierB(co.companyId, fakes.b, "ok", { enabled: false }));
    expect(expectError(await fetchProduct(co, "supplier_b", { styleId: "39" }), 409, "integration_unavailable").details.reason).toBe(
      "integration_disabled",
    );
    secrets.push(await connectSupplierB(co.companyId, fakes.b, "ok", { valid: false }));
    expect(expectError(await fetchProduct(co, "supplier_b", { styleId: "39" }), 502, "upstream_error").details).toEqual({
      source: "supplier_b",
      reason: "auth_failed",
    });
  });
});

describe("GET /products/invoice_item", () => {
  it("returns the live invoice item of the caller's company", async () => {
    const co = await newCompany();
    const order = await addOrder(co, [
      { title: "Polo, left chest logo", description: "Embroidery", quantity: "12.5", unit_price: "18.00" },
    ]);
    const res = await fetchProduct(co, "invoice_item", { id: String(order.items[0]) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      source: "invoice_item",
      item: {
        id: order.items[0],
        invoice_id: order.invoiceId,
        order_id: order.projectId,
        title: "Polo, left chest logo",
        description: "Embroidery",
        quantity: "12.5",
        unit_price: "18.00",
        amount: "225.00",
        sizes: { M: 2 },
        position: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
  });

  it("answers 404 for a deleted item, an item of a deleted invoice or order, another company's item, or none", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const deletedItem = (await addOrder(a, [{ title: "gone", deleted: true }])).items[0];
    const deletedOrder = (await addOrder(a, [{ title: "order gone" }], { projectDeleted: true })).items[0];
    const deletedInvoice = (await addOrder(a, [{ title: "invoice gone" }], { invoiceDeleted: true })).items[0];
    const ofA = (await addOrder(a, [{ title: "A's line" }])).items[0];
    const [{ max }] = await sql<{ max: number }>("select max(id) as max from invoice_items");

    const absent = await fetchProduct(b, "invoice_item", { id: String(max + 1000) });
    const err = expectError(absent, 404, "not_found");
    for (const id of [deletedItem, deletedOrder, deletedInvoice])
      expectError(await fetchProduct(a, "invoice_item", { id: String(id) }), 404, "not_found");
    const foreign = await fetchProduct(b, "invoice_item", { id: String(ofA) });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(absent.body);
    expect(err.message).toBe("Invoice item not found");
    // A's row is untouched and still readable by A.
    expect((await fetchProduct(a, "invoice_item", { id: String(ofA) })).status).toBe(200);
  });

  it("requires a positive integer id", async () => {
    const co = await newCompany();
    for (const id of [undefined, "", "abc", "0", "-1", "1.5", "99999999999"]) {
      const err = expectError(await fetchProduct(co, "invoice_item", id === undefined ? {} : { id }), 400, "invalid_request");
      expect(err.details[0].field).toBe("id");
    }
  });
});

describe("GET /products/{source}", () => {
  it("answers 400 for an unknown source", async () => {
    const co = await newCompany();
    const err = expectError(await fetchProduct(co, "sanmar", { style: "PC54" }), 400, "invalid_request");
    expect(err.details[0].field).toBe("source");
  });

  it("never uses company A's integration for company B", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const fresh = await newCompany();
    secrets.push(await connectSupplierA(a.companyId, fakes.a), await connectSupplierB(a.companyId, fakes.b));
    expect((await fetchProduct(a, "supplier_a", { style: "PC54" })).status).toBe(200);
    for (const [source, params] of [
      ["supplier_a", { style: "PC54" }],
      ["supplier_b", { styleId: "39" }],
    ] as const) {
      const res = await fetchProduct(b, source, params);
      expectError(res, 409, "integration_unavailable");
      expect(res.body).toEqual((await fetchProduct(fresh, source, params)).body);
    }
    expect(await sql("select provider, enabled from supplier_integrations where company_id = $1 order by provider", [a.companyId])).toEqual(
      [
        { provider: "supplier_a", enabled: true },
        { provider: "supplier_b", enabled: true },
      ],
    );
  });

  it("never puts credentials in a response or a log line", async () => {
    expect(secrets.length).toBeGreaterThan(5);
    expect(leaked(JSON.stringify(responses), ...secrets)).toEqual([]);
    expect(leaked(workerLogLines().join("\n"), ...secrets)).toEqual([]);
  });
});
