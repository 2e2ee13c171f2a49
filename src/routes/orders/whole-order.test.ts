import { describe, expect, it } from "vitest";
import { allAtOnce, expectError, newCompany, sql, waitFor } from "../../../test/support/api";
import { newClient, outboxRows } from "../../../test/support/orders";

const rowsOf = async (companyId: number) => ({
  projects: await sql("select count(*)::int n from projects where company_id = $1", [companyId]),
  invoices: await sql("select count(*)::int n from invoices where company_id = $1", [companyId]),
  items: await sql("select count(*)::int n from invoice_items where company_id = $1", [companyId]),
  payments: await sql("select count(*)::int n from payments where company_id = $1", [companyId]),
  artworks: await sql("select count(*)::int n from artworks where company_id = $1", [companyId]),
  outbox: await sql("select count(*)::int n from accounting_outbox where company_id = $1", [companyId]),
  events: await sql("select count(*)::int n from webhook_events where company_id = $1 and type like 'order.%'", [companyId]),
});

const twelveLines = () =>
  ["S", "M", "L", "XL"].flatMap((size) =>
    ["Navy", "White", "Heather"].map((color) => ({ title: `Tee ${color} ${size}`, unit_price: "12.50", sizes: { [size]: 6 } })),
  );

describe("POST /orders with items, payments and artworks", () => {
  it("creates the whole order in one request: lines in order, payments, artworks, totals, one outbox row, one order.created", async () => {
    const co = await newCompany({ accountingSync: true });
    const clientId = await newClient(co);
    const res = await co.post("/orders", {
      title: "League jerseys",
      client_id: clientId,
      external_id: "shop-42",
      metadata: { channel: "web" },
      items: twelveLines(),
      payments: [{ amount: "300.00", paid_date: "2026-11-01", method: "card" }],
      artworks: [{ print_method: "screen_print", placements: ["front"], status: "approved" }, { colors: ["Navy"] }],
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ external_id: "shop-42", metadata: { channel: "web" } });
    // 12 lines × 6 × 12.50
    expect(res.body.invoice.totals).toEqual({
      subtotal: "900.00",
      discount: "0.00",
      tax: "0.00",
      total: "900.00",
      amount_paid: "300.00",
      balance_due: "600.00",
    });
    const order = (await co.get(`/orders/${res.body.project.id}`)).body;
    expect(order.invoice).toEqual(res.body.invoice);
    expect(order.invoice_items.map((i: any) => [i.title, i.position, i.quantity])).toEqual(
      twelveLines().map((l, position) => [l.title, position, "6"]),
    );
    expect(order.payments).toEqual([expect.objectContaining({ amount: "300.00", method: "card", paid_date: "2026-11-01" })]);
    expect(order.artworks.map((a: any) => [a.status, a.approved_at === null])).toEqual([
      ["approved", false],
      ["draft", true],
    ]);
    expect((await outboxRows(res.body.project.id)).map((r) => [r.operation, r.payload])).toEqual([["create", {}]]);
    const events = await waitFor(
      "the order.created payload",
      () =>
        sql<{ type: string; payload: any }>("select type, payload from webhook_events where company_id = $1 and type like 'order.%'", [
          co.companyId,
        ]),
      (rows) => rows.length === 1 && rows[0].payload !== null,
    );
    expect(events[0].type).toBe("order.created");
    expect(events[0].payload.data.object).toEqual(res.body);
  });

  it("all or nothing: a bad line, payment or artwork, or a client of another company, writes nothing", async () => {
    const a = await newCompany({ accountingSync: true });
    const b = await newCompany();
    const clientId = await newClient(a);
    const foreignClient = await newClient(b);
    const before = await rowsOf(a.companyId);
    const base = { title: "T", client_id: clientId, items: [{ title: "Ok", unit_price: "1.00" }] };
    for (const [body, field] of [
      [
        {
          ...base,
          items: [
            { title: "Ok", unit_price: "1.00" },
            { title: "Bad", unit_price: "1.001" },
          ],
        },
        "items.1.unit_price",
      ],
      [{ ...base, items: [{ title: "Q", unit_price: "1", quantity: 3, sizes: { S: 2 } }] }, "items.0.quantity"],
      [{ ...base, payments: [{ amount: -1 }] }, "payments.0.amount"],
      [{ ...base, artworks: [{ status: "pending" }] }, "artworks.0.status"],
      [{ ...base, items: Array(1001).fill({ title: "x", unit_price: 1 }) }, "items"],
      [{ ...base, client_id: foreignClient }, "client_id"],
    ] as const) {
      const err = expectError(await a.post("/orders", body), 400, "invalid_request");
      expect(err.details, JSON.stringify(field)).toEqual([expect.objectContaining({ field })]);
    }
    expect(await rowsOf(a.companyId)).toEqual(before);
  });

  it("an external id another live order holds is 409; a deleted order frees it", async () => {
    const co = await newCompany();
    const clientId = await newClient(co);
    const first = await co.post("/orders", { title: "One", client_id: clientId, external_id: "o-1" });
    const err = expectError(await co.post("/orders", { title: "Two", client_id: clientId, external_id: "o-1" }), 409, "conflict");
    expect(err.details).toEqual([{ field: "external_id", message: `Already the external id of order ${first.body.project.id}` }]);
    await co.del(`/orders/${first.body.project.id}`);
    expect((await co.post("/orders", { title: "Two", client_id: clientId, external_id: "o-1" })).status).toBe(200);
    // The list finds the live one by it.
    const listed = await co.get("/orders?external_id=o-1");
    expect(listed.body.data.map((o: any) => o.title)).toEqual(["Two"]);
  });
});

describe("PUT /orders/by-external-id/{external_id}", () => {
  it("creates (201, as POST) then updates the fields sent (200, as PATCH), each contents kind sent replacing the live ones", async () => {
    const co = await newCompany({ accountingSync: true });
    const clientId = await newClient(co);
    const body = {
      title: "Storefront #1001",
      client_id: clientId,
      items: [{ title: "Hoodie", unit_price: "30.00", quantity: 2 }],
      payments: [{ amount: "10.00" }],
    };
    const created = await co.put("/orders/by-external-id/1001", body);
    expect(created.status).toBe(201);
    const id = created.body.project.id;
    expect(created.headers.get("etag")).toBe((await co.get(`/orders/${id}`)).headers.get("etag"));
    expect(created.body.invoice.totals).toMatchObject({ total: "60.00", amount_paid: "10.00" });
    const updated = await co.put("/orders/by-external-id/1001", {
      ...body,
      title: "Storefront #1001 (edited)",
      items: [
        { title: "Hoodie", unit_price: "30.00", quantity: 3 },
        { title: "Setup", unit_price: "20.00" },
      ],
      metadata: { status: "paid" },
    });
    expect(updated.status).toBe(200);
    expect(updated.headers.get("etag")).toBe((await co.get(`/orders/${id}`)).headers.get("etag"));
    // Payments not sent: kept. Items sent: replaced.
    expect(updated.body.invoice.totals).toMatchObject({ subtotal: "110.00", amount_paid: "10.00", balance_due: "100.00" });
    const order = (await co.get(`/orders/${id}`)).body;
    expect(order.project).toMatchObject({ title: "Storefront #1001 (edited)", external_id: "1001", metadata: { status: "paid" } });
    expect(order.invoice_items.map((i: any) => [i.title, i.position])).toEqual([
      ["Hoodie", 0],
      ["Setup", 1],
    ]);
    expect(order.invoice).toEqual(updated.body.invoice);
    const outbox = (await outboxRows(id)).map((r) => [r.operation, r.payload]);
    expect(outbox).toEqual([
      ["create", {}],
      ["update", { changes: { client_id: clientId, lines: true } }],
    ]);
    const types = await sql<{ type: string }>(
      "select type from webhook_events where resource_id = $1 and type like 'order.%' order by id",
      [String(id)],
    );
    expect(types.map((t) => t.type)).toEqual(["order.created", "order.updated"]);
    // An empty array removes that kind.
    const emptied = await co.put("/orders/by-external-id/1001", { ...body, payments: [] });
    expect(emptied.body.invoice.totals.amount_paid).toBe("0.00");
  });

  it("20 identical PUTs at once make one order with one set of lines; two companies' same external id are two orders", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const clientA = await newClient(a);
    const clientB = await newClient(b);
    const body = (clientId: number) => ({ title: "Race", client_id: clientId, items: [{ title: "Line", unit_price: "5.00" }] });
    const results = await allAtOnce(20, () => a.put("/orders/by-external-id/race", body(clientA)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(results.map((r) => r.body.project.id)).size).toBe(1);
    const id = results[0].body.project.id;
    expect((await sql("select count(*)::int n from projects where company_id = $1", [a.companyId]))[0].n).toBe(1);
    expect((await a.get(`/orders/${id}`)).body.invoice_items).toHaveLength(1);
    const theirs = await b.put("/orders/by-external-id/race", body(clientB));
    expect(theirs.status).toBe(201);
    expect(theirs.body.project.id).not.toBe(id);
    // B's PUT with A's client is B's 400, and A's order is untouched.
    expectError(await b.put("/orders/by-external-id/race", body(clientA)), 400, "invalid_request");
    expect((await a.get(`/orders/${id}`)).body.project.title).toBe("Race");
  });
});
