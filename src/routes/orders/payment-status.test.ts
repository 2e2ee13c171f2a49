import Big from "big.js";
import { describe, expect, it } from "vitest";
import { newCompany } from "../../../test/support/api";

/** A small deterministic generator (the same orders every run). */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  return <T>(choices: readonly T[]) => choices[Math.floor(next() * choices.length)];
}

describe("the payment status the list filters on", () => {
  it("agrees with the totals every answer computes (src/domain/totals.ts) on invoices made to hit half cents", async () => {
    const co = await newCompany();
    const pick = random(27);
    const rates = ["8.875", "6.2525", "12.5", "0.0001", "99.9999", "7"];
    const taxes = rates.map((rate, i) => ({ ref: `t${i}`, name: `Tax ${i}`, rate }));
    const orders = Array.from({ length: 40 }, (_, i) => {
      const percentage = pick([true, false]);
      return {
        ref: `o${i}`,
        client_ref: "c",
        title: `Order ${i}`,
        invoice: {
          tax_ref: pick([...taxes.map((t) => t.ref), undefined]),
          tax_exempt: pick([false, false, false, true]),
          discount_amount: percentage ? pick(["0", "12.5", "33.33", "50", "100", "0.05"]) : pick(["0", "0.01", "19.99", "1000"]),
          discount_amount_type: percentage ? "percentage" : "fixed_amount",
          discount_type: pick(["before_tax", "after_tax"]),
        },
        items: Array.from({ length: pick([0, 1, 2, 3]) }, (_, j) => ({
          ref: `o${i}i${j}`,
          title: "Line",
          quantity: pick(["1", "0.5", "1.25", "3", "0.01"]),
          unit_price: pick(["0.01", "0.05", "19.99", "12.35", "100.00", "0.03"]),
        })),
      };
    });
    const ids = await co.load({ clients: [{ ref: "c", company_name: "Random Co" }], taxes, orders });

    // Payments around each total: none, a cent short, exact, a cent over, or some.
    const listed = async () => {
      const res = await co.get("/orders?per_page=100");
      expect(res.status).toBe(200);
      return res.body.data as { id: number; total: string; amount_paid: string }[];
    };
    for (const order of await listed()) {
      const total = new Big(order.total);
      const amount = pick([null, total.minus("0.01"), total, total.plus("0.01"), total.div(3).round(2)]);
      if (amount === null || amount.lte(0)) continue;
      expect((await co.post(`/orders/${order.id}/payments`, { amount: amount.toFixed(2) })).status).toBe(200);
    }

    const expected = { unpaid: [] as number[], partial: [] as number[], paid: [] as number[] };
    for (const order of await listed()) {
      const [total, paid] = [new Big(order.total), new Big(order.amount_paid)];
      expected[paid.gte(total) ? "paid" : paid.eq(0) ? "unpaid" : "partial"].push(order.id);
    }
    // Every kind is there, so the comparison means something.
    expect(Object.values(expected).map((list) => list.length > 3)).toEqual([true, true, true]);
    for (const [status, list] of Object.entries(expected)) {
      const res = await co.get(`/orders?payment_status=${status}&per_page=100`);
      expect(res.body.data.map((o: { id: number }) => o.id).sort(), status).toEqual([...list].sort());
    }
    expect(Object.keys(ids).length).toBeGreaterThan(40);
  });
});
