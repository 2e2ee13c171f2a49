import { describe, expect, it } from "vitest";
import { asRequest, expectError, newCompany, sql } from "../../../test/support/api";
import { newOrder } from "../../../test/support/orders";

const seed = {
  clients: [{ ref: "c", company_name: "Copper Kettle Brewhouse", email: "priya@copperkettle.example" }],
  order_statuses: [{ ref: "s-art", name: "Artwork approval" }],
  taxes: [{ ref: "t", name: "State tax", rate: 6.25 }],
  orders: [
    {
      ref: "o",
      client_ref: "c",
      title: "Staff hoodies",
      description: "Embroidered left chest",
      start_date: "next week",
      deadline: "2026-12-01",
      status_ref: "s-art",
      invoice: { client_notes: "Net 15", tax_ref: "t", discount_amount: 5, discount_amount_type: "fixed", discount_type: "after_tax" },
      items: [
        { ref: "i2", title: "Independent SS4500 hoodie", quantity: 12, unit_price: "38.00", sizes: { M: 6, L: 6 } },
        { ref: "i1", title: "Embroidery digitizing", unit_price: "45.00" },
      ],
      payments: [{ ref: "p", amount: "200.00", paid_date: "2026-11-02", method: "ach", reference: "INV-88" }],
      artworks: [
        {
          ref: "a",
          print_method: "embroidery",
          placements: ["left_chest"],
          colors: ["Copper 1172", "White"],
          preview_url: "https://cdn.example/kettle.png",
          status: "approved",
        },
      ],
    },
  ],
};

describe("GET /orders/{id}", () => {
  it("returns every group: project, invoice with totals, items, payments, client, tax, status, artworks", async () => {
    const co = await newCompany();
    const ids = await co.load(seed);
    const res = await co.get(`/orders/${ids.o}`);
    expect(res.status).toBe(200);
    const b = res.body;
    expect(Object.keys(b).sort()).toEqual(["artworks", "client", "invoice", "invoice_items", "payments", "project", "status", "tax"]);
    expect(b.project).toMatchObject({
      id: ids.o,
      title: "Staff hoodies",
      description: "Embroidered left chest",
      start_date: "next week",
      deadline: "2026-12-01",
      status_id: ids["s-art"],
      client_id: ids.c,
    });
    expect(b.invoice).toMatchObject({
      project_id: ids.o,
      client_id: ids.c,
      due_date: "2026-12-01",
      client_notes: "Net 15",
      tax_id: ids.t,
      discount_amount: "5.00",
      discount_amount_type: "fixed_amount",
      discount_type: "after_tax",
      // 12 × 38 + 45 = 501.00; tax 6.25 % = 31.3125 → 31.31; minus 5.00 after tax.
      totals: { subtotal: "501.00", discount: "5.00", tax: "31.31", total: "527.31", amount_paid: "200.00", balance_due: "327.31" },
    });
    expect(b.invoice_items).toEqual([
      {
        id: ids.i2,
        invoice_id: b.invoice.id,
        title: "Independent SS4500 hoodie",
        description: null,
        quantity: "12",
        unit_price: "38.00",
        amount: "456.00",
        sizes: { M: 6, L: 6 },
        position: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        decorations: [],
      },
      {
        id: ids.i1,
        invoice_id: b.invoice.id,
        title: "Embroidery digitizing",
        description: null,
        quantity: "1",
        unit_price: "45.00",
        amount: "45.00",
        sizes: null,
        position: 1,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        decorations: [],
      },
    ]);
    expect(b.payments).toEqual([
      {
        id: ids.p,
        amount: "200.00",
        paid_date: "2026-11-02",
        method: "ach",
        reference: "INV-88",
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(b.client).toMatchObject({ id: ids.c, company_name: "Copper Kettle Brewhouse", email: "priya@copperkettle.example" });
    expect(b.tax).toEqual({ id: ids.t, name: "State tax", rate: "6.25" });
    expect(b.status).toEqual({ id: ids["s-art"], name: "Artwork approval", position: 0 });
    expect(b.artworks).toEqual([
      {
        id: ids.a,
        print_method: "embroidery",
        placements: ["left_chest"],
        colors: ["Copper 1172", "White"],
        preview_url: "https://cdn.example/kettle.png",
        status: "approved",
        approved_at: b.project.created_at,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        approval: null,
      },
    ]);
  });

  it("a fresh order has null tax and status and empty lists", async () => {
    const co = await newCompany();
    const { project } = await newOrder(co);
    const b = (await co.get(`/orders/${project.id}`)).body;
    expect(b).toMatchObject({ tax: null, status: null, invoice_items: [], payments: [], artworks: [] });
  });

  it("another company's order answers exactly like a missing one", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const ids = await a.load(seed);
    const foreign = await b.get(`/orders/${ids.o}`, asRequest("foreign-or-missing"));
    const missing = await b.get("/orders/2000000000", asRequest("foreign-or-missing"));
    expectError(foreign, 404, "not_found");
    expect(foreign.body).toEqual(missing.body);
    expect((await a.get(`/orders/${ids.o}`)).status).toBe(200);
  });

  it("rejects an id that is not a positive integer with 400 naming it", async () => {
    const co = await newCompany();
    for (const id of ["abc", "0", "-1", "1.5", "99999999999"]) {
      const err = expectError(await co.get(`/orders/${id}`), 400, "invalid_request");
      expect(err.details).toEqual([expect.objectContaining({ field: "id" })]);
    }
  });

  it("child rows carry their exact timestamps (the lists travel as JSON inside the one query)", async () => {
    const co = await newCompany();
    const ids = await co.load(seed);
    const at = "2026-03-01T09:15:30.123Z";
    await sql("update invoice_items set created_at = $2, updated_at = $2 where id = $1", [ids.i1, at]);
    await sql("update payments set created_at = $2 where id = $1", [ids.p, at]);
    await sql("update artworks set created_at = $2, updated_at = $2 where id = $1", [ids.a, at]);
    const b = (await co.get(`/orders/${ids.o}`)).body;
    expect(b.invoice_items[1]).toMatchObject({ id: ids.i1, created_at: at, updated_at: at });
    expect(b.payments[0]).toMatchObject({ id: ids.p, created_at: at });
    expect(b.artworks[0]).toMatchObject({ id: ids.a, created_at: at, updated_at: at });
  });
});

describe("size breakdowns", () => {
  it("come back in apparel order (youth, XXS…6XL, one size, then others), whatever jsonb did to the keys", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "c", company_name: "Sizes Inc" }],
      orders: [{ ref: "o", client_ref: "c", title: "Mixed sizes", items: [{ ref: "i", title: "Tee", unit_price: "10.00" }] }],
    });
    // Stored as older data may hold it: a lower-case size and one outside the apparel set (the API and import refuse both).
    const sizes = { XL: 8, "Custom A": 1, s: 6, "2XL": 4, M: 14, L: 14, YM: 2, OSFA: 3 };
    await sql("update invoice_items set sizes = $2 where id = $1", [ids.i, JSON.stringify(sizes)]);
    const res = await co.get(`/orders/${ids.o}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.invoice_items[0].sizes)).toEqual(["YM", "s", "M", "L", "XL", "2XL", "OSFA", "Custom A"]);
    expect(res.body.invoice_items[0].sizes).toEqual({ YM: 2, s: 6, M: 14, L: 14, XL: 8, "2XL": 4, OSFA: 3, "Custom A": 1 });
  });
});
