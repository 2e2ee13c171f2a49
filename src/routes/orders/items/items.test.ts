import { describe, expect, it } from "vitest";
import { errorEnvelope, expectError, newCompany, sql, type TestCompany, workerLogLines } from "../../../../test/support/api";
import { newOrder, outboxRows } from "../../../../test/support/orders";

const livePositions = async (invoiceId: number) =>
  sql<{ id: number; position: number }>(
    "select id, position from invoice_items where invoice_id = $1 and deleted_at is null order by position, id",
    [invoiceId],
  );

/** An order through the API with items titled a, b, c … in that order; returns ids. */
async function orderWithItems(co: TestCompany, titles: string[] = []) {
  const { project, invoice } = await newOrder(co);
  const items: number[] = [];
  for (const title of titles) {
    const res = await co.post(`/orders/${project.id}/items`, { title, unit_price: "1.00" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(res.body.item.id);
  }
  return { orderId: project.id as number, invoiceId: invoice.id as number, items };
}

describe("POST /orders/{id}/items", () => {
  it("adds an item with sizes, answers it with the invoice's new totals and bumps updated_at", async () => {
    const co = await newCompany();
    const { project, invoice } = await newOrder(co);
    const res = await co.post(`/orders/${project.id}/items`, {
      title: "Gildan 5000 tee",
      description: "2-color front",
      unit_price: "12.50",
      sizes: { xl: 2, S: 4, m: 10, L: 8 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.item).toMatchObject({
      invoice_id: invoice.id,
      title: "Gildan 5000 tee",
      quantity: "24",
      unit_price: "12.50",
      amount: "300.00",
      position: 0,
      sizes: { S: 4, M: 10, L: 8, XL: 2 },
    });
    expect(Object.keys(res.body.item.sizes)).toEqual(["S", "M", "L", "XL"]);
    expect(res.body.invoice.totals).toEqual({
      subtotal: "300.00",
      discount: "0.00",
      tax: "0.00",
      total: "300.00",
      amount_paid: "0.00",
      balance_due: "300.00",
    });
    expect(res.body.invoice.updated_at > invoice.updated_at).toBe(true);
    const order = await co.get(`/orders/${project.id}`);
    expect(order.body.invoice.totals).toEqual(res.body.invoice.totals);
    expect(order.body.project.updated_at).toBe(res.body.invoice.updated_at);
    expect(order.body.invoice_items).toEqual([res.body.item]);
  });

  it("defaults quantity to 1 without sizes, accepts a matching quantity, rounds amounts half-up", async () => {
    const co = await newCompany();
    const { orderId } = await orderWithItems(co);
    const one = await co.post(`/orders/${orderId}/items`, { title: "Setup", unit_price: 25 });
    expect(one.body.item).toMatchObject({ quantity: "1", sizes: null, amount: "25.00" });
    const both = await co.post(`/orders/${orderId}/items`, { title: "Caps", quantity: "3", sizes: { OS: 3 }, unit_price: "0.005" });
    expectError(both, 400, "invalid_request");
    const half = await co.post(`/orders/${orderId}/items`, { title: "Caps", quantity: 2.5, unit_price: "1.01" });
    expect(half.body.item.amount).toBe("2.53");
    expect(half.body.invoice.totals.subtotal).toBe("27.53");
  });

  it("places an item at a position and keeps positions dense; past the end appends", async () => {
    const co = await newCompany();
    const { orderId, invoiceId, items } = await orderWithItems(co, ["a", "b", "c"]);
    const x = await co.post(`/orders/${orderId}/items`, { title: "x", unit_price: "1.00", position: 1 });
    expect(x.body.item.position).toBe(1);
    const z = await co.post(`/orders/${orderId}/items`, { title: "z", unit_price: "1.00", position: 999 });
    expect(z.body.item.position).toBe(4);
    expect(await livePositions(invoiceId)).toEqual([
      { id: items[0], position: 0 },
      { id: x.body.item.id, position: 1 },
      { id: items[1], position: 2 },
      { id: items[2], position: 3 },
      { id: z.body.item.id, position: 4 },
    ]);
    const { body } = await co.get(`/orders/${orderId}`);
    expect(body.invoice_items.map((i: any) => i.title)).toEqual(["a", "x", "b", "c", "z"]);
  });

  it("rejects bad input with the offending fields, writing nothing", async () => {
    const co = await newCompany();
    const { orderId, invoiceId } = await orderWithItems(co);
    const cases: [unknown, string[]][] = [
      [{}, ["title", "unit_price"]],
      [{ title: " ", unit_price: "1" }, ["title"]],
      [{ title: "t", unit_price: "1.005" }, ["unit_price"]],
      [{ title: "t", unit_price: -1 }, ["unit_price"]],
      [{ title: "t", unit_price: "1", quantity: "1e-3" }, ["quantity"]],
      [{ title: "t", unit_price: "1", sizes: { S: 2, M: 3 }, quantity: 4 }, ["quantity"]],
      [{ title: "t", unit_price: "1", sizes: { XLL: 1 } }, ["sizes.XLL"]],
      [{ title: "t", unit_price: "1", sizes: { s: 1, S: 2 } }, ["sizes.S"]],
      [{ title: "t", unit_price: "1", sizes: { S: 1.5 } }, ["sizes.S"]],
      [{ title: "t", unit_price: "1", sizes: {} }, ["sizes"]],
      [{ title: "t", unit_price: "1", position: -1 }, ["position"]],
      [{ title: "t", unit_price: "1", company_id: 1 }, ["company_id"]],
    ];
    for (const [body, fields] of cases) {
      const err = expectError(await co.post(`/orders/${orderId}/items`, body), 400, "invalid_request");
      expect(err.details.map((d: any) => d.field).sort(), JSON.stringify(body)).toEqual(fields.sort());
    }
    expect(await livePositions(invoiceId)).toEqual([]);
  });

  it("answers 404 for another company's order, a deleted order and a missing one, identically", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { orderId, invoiceId } = await orderWithItems(a);
    const deleted = await orderWithItems(b);
    expect((await b.del(`/orders/${deleted.orderId}`)).status).toBe(200);
    const body = { title: "t", unit_price: "1.00" };
    const answers = [
      await b.post(`/orders/${orderId}/items`, body),
      await b.post(`/orders/${deleted.orderId}/items`, body),
      await b.post("/orders/2147483647/items", body),
    ];
    for (const res of answers)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Order not found", details: null }));
    expect(await livePositions(invoiceId)).toEqual([]);
    expect(await livePositions(deleted.invoiceId)).toEqual([]);
  });

  it("holds at most 1,000 live items per order", async () => {
    const co = await newCompany();
    const { orderId, invoiceId } = await orderWithItems(co);
    await sql(
      "insert into invoice_items (company_id, invoice_id, title, unit_price, position) select $1, $2, 'bulk', 1, g from generate_series(0, 999) g",
      [co.companyId, invoiceId],
    );
    const err = expectError(await co.post(`/orders/${orderId}/items`, { title: "one more", unit_price: "1" }), 400, "invalid_request");
    expect(err.details).toEqual([{ field: "(order)", message: expect.stringContaining("1000") }]);
    expect((await livePositions(invoiceId)).length).toBe(1000);
  });

  it("concurrent inserts never duplicate a position, and the totals read afterwards are exact", async () => {
    const co = await newCompany();
    const { orderId, invoiceId } = await orderWithItems(co, ["first"]);
    const n = 12;
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        co.post(`/orders/${orderId}/items`, { title: `c${i}`, unit_price: "1.00", ...(i % 2 ? { position: 0 } : {}) }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(n).fill(200));
    const rows = await livePositions(invoiceId);
    expect(rows.map((r) => r.position)).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
    // Each answer's subtotal counts the items written before it: all distinct, the last one complete.
    const subtotals = answers.map((r) => r.body.invoice.totals.subtotal).sort((x, y) => Number(x) - Number(y));
    expect(subtotals).toEqual(Array.from({ length: n }, (_, i) => `${i + 2}.00`));
    expect((await co.get(`/orders/${orderId}`)).body.invoice.totals.subtotal).toBe(`${n + 1}.00`);
  });
});

describe("item writes beside order writes", () => {
  it("concurrent PATCH /orders/{id} and item inserts all succeed (no deadlock) and the totals read afterwards are exact", async () => {
    const co = await newCompany();
    const { orderId, invoiceId } = await orderWithItems(co, ["first"]);
    const writes = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => co.post(`/orders/${orderId}/items`, { title: `c${i}`, unit_price: "10.00", position: 0 })),
      co.patch(`/orders/${orderId}`, { discount_amount: "10", discount_amount_type: "percentage", title: "Renamed" }),
      co.patch(`/orders/${orderId}`, { description: "Rush" }),
    ]);
    expect(writes.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await livePositions(invoiceId)).map((r) => r.position)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const { body } = await co.get(`/orders/${orderId}`);
    // 6 × 10.00 + 1.00 = 61.00, 10 % off = 6.10.
    expect(body.invoice.totals).toMatchObject({ subtotal: "61.00", discount: "6.10", total: "54.90" });
    expect(body.project).toMatchObject({ title: "Renamed", description: "Rush" });
  });
});

describe("the write path", () => {
  it("is the optimistic two-statement path for sequential writes (the locked fallback only runs under contention)", async () => {
    const co = await newCompany();
    const { orderId, items } = await orderWithItems(co, ["a", "b"]);
    for (let i = 0; i < 3; i++) {
      expect((await co.post(`/orders/${orderId}/payments`, { amount: "1" })).status).toBe(200);
      expect((await co.patch(`/orders/${orderId}/items/${items[1]}`, { position: i % 2, unit_price: `${i + 2}` })).status).toBe(200);
      expect((await co.post(`/orders/${orderId}/artworks`, {})).status).toBe(200);
    }
    const fallbacks = workerLogLines().filter((l) => l.includes("under its invoice's row lock") && l.includes(`"order_id":${orderId}`));
    expect(fallbacks).toEqual([]);
  });
});

describe("PATCH /orders/{id}/items/{item_id}", () => {
  it("changes only the fields sent; sizes alone set the quantity; totals follow", async () => {
    const co = await newCompany();
    const { orderId, items } = await orderWithItems(co, ["a"]);
    const res = await co.patch(`/orders/${orderId}/items/${items[0]}`, { sizes: { S: 2, M: 3 }, unit_price: "10" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.item).toMatchObject({ title: "a", quantity: "5", sizes: { S: 2, M: 3 }, unit_price: "10.00", amount: "50.00" });
    expect(res.body.invoice.totals.total).toBe("50.00");
    // A quantity alone must match the stored breakdown.
    const err = expectError(await co.patch(`/orders/${orderId}/items/${items[0]}`, { quantity: 6 }), 400, "invalid_request");
    expect(err.details[0].field).toBe("quantity");
    const same = await co.patch(`/orders/${orderId}/items/${items[0]}`, { quantity: "5.00", title: "A" });
    expect(same.body.item).toMatchObject({ title: "A", quantity: "5" });
    // sizes: null drops the breakdown and keeps the quantity; then any quantity goes.
    const dropped = await co.patch(`/orders/${orderId}/items/${items[0]}`, { sizes: null });
    expect(dropped.body.item).toMatchObject({ quantity: "5", sizes: null });
    const seven = await co.patch(`/orders/${orderId}/items/${items[0]}`, { quantity: 7, description: null });
    expect(seven.body.item).toMatchObject({ quantity: "7", description: null, amount: "70.00" });
    expect(seven.body.invoice.totals.subtotal).toBe("70.00");
  });

  it("moves an item and renumbers the others densely", async () => {
    const co = await newCompany();
    const { orderId, invoiceId, items } = await orderWithItems(co, ["a", "b", "c", "d"]);
    const down = await co.patch(`/orders/${orderId}/items/${items[0]}`, { position: 2 });
    expect(down.body.item.position).toBe(2);
    const titles = async () => (await co.get(`/orders/${orderId}`)).body.invoice_items.map((i: any) => `${i.title}${i.position}`);
    expect(await titles()).toEqual(["b0", "c1", "a2", "d3"]);
    await co.patch(`/orders/${orderId}/items/${items[3]}`, { position: 0 });
    expect(await titles()).toEqual(["d0", "b1", "c2", "a3"]);
    await co.patch(`/orders/${orderId}/items/${items[1]}`, { position: 50 });
    expect(await titles()).toEqual(["d0", "c1", "a2", "b3"]);
    expect((await livePositions(invoiceId)).map((r) => r.position)).toEqual([0, 1, 2, 3]);
  });

  it("answers 404 for an item of another order, another company's item, a deleted item; 400 for an empty body", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const x = await orderWithItems(a, ["x"]);
    const y = await orderWithItems(a, ["y"]);
    const theirs = await orderWithItems(b, ["z"]);
    await a.del(`/orders/${x.orderId}/items/${x.items[0]}`);
    const answers = [
      await a.patch(`/orders/${y.orderId}/items/${theirs.items[0]}`, { title: "t" }),
      await a.patch(`/orders/${y.orderId}/items/${x.items[0]}`, { title: "t" }),
      await a.patch(`/orders/${x.orderId}/items/${x.items[0]}`, { title: "t" }),
      await a.patch(`/orders/${y.orderId}/items/2147483647`, { title: "t" }),
    ];
    for (const res of answers)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Item not found", details: null }));
    const foreignOrder = await b.patch(`/orders/${y.orderId}/items/${y.items[0]}`, { title: "t" });
    expect(foreignOrder.body.error.message).toBe("Order not found");
    expectError(await a.patch(`/orders/${y.orderId}/items/${y.items[0]}`, {}), 400, "invalid_request");
    expectError(await a.patch(`/orders/${y.orderId}/items/abc`, { title: "t" }), 400, "invalid_request");
    const [row] = await sql("select title from invoice_items where id = $1", [theirs.items[0]]);
    expect(row.title).toBe("z");
  });

  it("a concurrent delete and patch of one item leave a consistent state", async () => {
    const co = await newCompany();
    for (let round = 0; round < 4; round++) {
      const { orderId, invoiceId, items } = await orderWithItems(co, ["a", "b", "c"]);
      const [del, patch] = await Promise.all([
        co.del(`/orders/${orderId}/items/${items[1]}`),
        co.patch(`/orders/${orderId}/items/${items[1]}`, { unit_price: "5.00", position: 0 }),
      ]);
      expect(del.status).toBe(200);
      expect([200, 404]).toContain(patch.status);
      const rows = await livePositions(invoiceId);
      expect(rows).toEqual([
        { id: items[0], position: 0 },
        { id: items[2], position: 1 },
      ]);
      expect((await co.get(`/orders/${orderId}`)).body.invoice.totals.subtotal).toBe("2.00");
    }
  });
});

describe("DELETE /orders/{id}/items/{item_id}", () => {
  it("soft-deletes the item, closes the gap and answers the new totals; a repeat is 404", async () => {
    const co = await newCompany();
    const { orderId, invoiceId, items } = await orderWithItems(co, ["a", "b", "c"]);
    const res = await co.del(`/orders/${orderId}/items/${items[0]}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ deleted: true, id: items[0], invoice: { totals: { subtotal: "2.00" } } });
    expect(await livePositions(invoiceId)).toEqual([
      { id: items[1], position: 0 },
      { id: items[2], position: 1 },
    ]);
    const [row] = await sql("select deleted_at from invoice_items where id = $1", [items[0]]);
    expect(row.deleted_at).not.toBeNull();
    expectError(await co.del(`/orders/${orderId}/items/${items[0]}`), 404, "not_found");
  });

  it("another company gets 404 and the item stays", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const { orderId, invoiceId, items } = await orderWithItems(a, ["a"]);
    expect((await b.del(`/orders/${orderId}/items/${items[0]}`)).body.error.message).toBe("Order not found");
    expect((await livePositions(invoiceId)).length).toBe(1);
  });
});

describe("item writes and accounting", () => {
  it("queue an update that resends the lines when sync applies, and nothing when it does not", async () => {
    const synced = await newCompany({ accountingSync: true });
    const s = await orderWithItems(synced, ["a"]);
    await synced.patch(`/orders/${s.orderId}/items/${s.items[0]}`, { title: "A" });
    await synced.del(`/orders/${s.orderId}/items/${s.items[0]}`);
    const rows = await outboxRows(s.orderId);
    expect(rows.map((r) => [r.operation, r.payload])).toEqual([
      ["create", {}],
      ["update", { changes: { lines: true } }],
      ["update", { changes: { lines: true } }],
      ["update", { changes: { lines: true } }],
    ]);

    const plain = await newCompany();
    const p = await orderWithItems(plain, ["a"]);
    expect(await outboxRows(p.orderId)).toEqual([]);
    // An order created with sync on in a company without it keeps syncing its lines.
    const { project } = await newOrder(plain, { quickbooks_enabled: true });
    await plain.post(`/orders/${project.id}/items`, { title: "a", unit_price: "1" });
    expect((await outboxRows(project.id)).map((r) => r.operation)).toEqual(["create", "update"]);
  });
});
