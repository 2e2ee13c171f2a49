import { describe, expect, it } from "vitest";
import { errorEnvelope, expectError, newCompany, sql } from "../../../../test/support/api";
import { newOrder, outboxRows } from "../../../../test/support/orders";

/** An order with one 100.00 line, made through the API. */
async function orderOf100(co: Awaited<ReturnType<typeof newCompany>>) {
  const { project } = await newOrder(co);
  const item = await co.post(`/orders/${project.id}/items`, { title: "Tees", quantity: 10, unit_price: "10.00" });
  expect(item.status).toBe(200);
  return project.id as number;
}

const livePayments = (orderId: number) =>
  sql<{ amount: string }>(
    "select p.amount from payments p join invoices i on i.id = p.invoice_id where i.project_id = $1 and p.deleted_at is null order by p.id",
    [orderId],
  );

describe("POST/PATCH/DELETE /orders/{id}/payments", () => {
  it("records, changes and deletes payments; the balance follows, overpayment is a negative balance", async () => {
    const co = await newCompany();
    const orderId = await orderOf100(co);
    const deposit = await co.post(`/orders/${orderId}/payments`, {
      amount: "40",
      paid_date: "2026-12-01",
      method: "card",
      reference: "ch_1",
    });
    expect(deposit.status, JSON.stringify(deposit.body)).toBe(200);
    expect(deposit.body.payment).toMatchObject({ amount: "40.00", paid_date: "2026-12-01", method: "card", reference: "ch_1" });
    expect(deposit.body.invoice.totals).toMatchObject({ total: "100.00", amount_paid: "40.00", balance_due: "60.00" });

    const more = await co.post(`/orders/${orderId}/payments`, { amount: 80.1 });
    expect(more.body.payment).toMatchObject({ amount: "80.10", paid_date: null, method: null, reference: null });
    expect(more.body.invoice.totals).toMatchObject({ amount_paid: "120.10", balance_due: "-20.10" });

    const changed = await co.patch(`/orders/${orderId}/payments/${more.body.payment.id}`, { amount: "60.00", reference: "#1042" });
    expect(changed.body.payment).toMatchObject({ amount: "60.00", reference: "#1042" });
    expect(changed.body.invoice.totals).toMatchObject({ amount_paid: "100.00", balance_due: "0.00" });

    const gone = await co.del(`/orders/${orderId}/payments/${deposit.body.payment.id}`);
    expect(gone.body).toMatchObject({ deleted: true, id: deposit.body.payment.id, invoice: { totals: { balance_due: "40.00" } } });
    const order = await co.get(`/orders/${orderId}`);
    expect(order.body.payments.map((p: any) => p.id)).toEqual([more.body.payment.id]);
    expect(order.body.invoice.totals).toEqual(gone.body.invoice.totals);
    expectError(await co.del(`/orders/${orderId}/payments/${deposit.body.payment.id}`), 404, "not_found");
    // Payments are local only: no accounting row even with sync on.
    const synced = await newCompany({ accountingSync: true });
    const s = await newOrder(synced);
    await synced.post(`/orders/${s.project.id}/payments`, { amount: 1 });
    expect((await outboxRows(s.project.id)).map((r) => r.operation)).toEqual(["create"]);
  });

  it("rejects bad input naming the fields, writing nothing", async () => {
    const co = await newCompany();
    const orderId = await orderOf100(co);
    const cases: [string, unknown, string[]][] = [
      ["post", {}, ["amount"]],
      ["post", { amount: "1.001" }, ["amount"]],
      ["post", { amount: -5 }, ["amount"]],
      ["post", { amount: "12", paid_date: "2026-02-30" }, ["paid_date"]],
      ["post", { amount: "12", method: "x".repeat(101) }, ["method"]],
      ["post", { amount: "12", invoice_id: 1 }, ["invoice_id"]],
      ["patch", {}, ["(body)"]],
      ["patch", { amount: null }, ["amount"]],
    ];
    const { body } = await co.post(`/orders/${orderId}/payments`, { amount: "1.00" });
    for (const [method, payload, fields] of cases) {
      const res =
        method === "post"
          ? await co.post(`/orders/${orderId}/payments`, payload)
          : await co.patch(`/orders/${orderId}/payments/${body.payment.id}`, payload);
      const err = expectError(res, 400, "invalid_request");
      expect(err.details.map((d: any) => d.field).sort(), JSON.stringify(payload)).toEqual(fields.sort());
    }
    expect(await livePayments(orderId)).toEqual([{ amount: "1.00" }]);
  });

  it("another company's order or payment, and a payment of another order, are 404 and stay unchanged", async () => {
    const a = await newCompany();
    const b = await newCompany();
    const x = await orderOf100(a);
    const y = await orderOf100(a);
    const pay = (await a.post(`/orders/${x}/payments`, { amount: "5.00" })).body.payment.id;
    const answers = [
      await b.post(`/orders/${x}/payments`, { amount: 1 }),
      await b.patch(`/orders/${x}/payments/${pay}`, { amount: 1 }),
      await b.del(`/orders/${x}/payments/${pay}`),
    ];
    for (const res of answers)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Order not found", details: null }));
    const wrongOrder = [await a.patch(`/orders/${y}/payments/${pay}`, { amount: 1 }), await a.del(`/orders/${y}/payments/${pay}`)];
    for (const res of wrongOrder)
      expect(res.body).toEqual(errorEnvelope(res, { code: "not_found", message: "Payment not found", details: null }));
    expect(await livePayments(x)).toEqual([{ amount: "5.00" }]);
    expect(await livePayments(y)).toEqual([]);
  });
});
