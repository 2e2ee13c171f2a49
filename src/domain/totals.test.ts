import { describe, expect, it } from "vitest";
import { newCompany, sql } from "../../test/support/api";

// Subtotal 359.97 (24 × 12.50 + 3 × 19.99), tax 8.875 %, payments 100.00 + 50.50.
const items = [
  { ref: "", title: "Gildan 5000 tee, 2-color front", quantity: 24, unit_price: "12.50", sizes: { S: 4, M: 10, L: 10 } },
  { ref: "", title: "Setup fee", quantity: "3", unit_price: 19.99 },
];
const payments = [
  { ref: "", amount: "100.00", paid_date: "2026-03-01", method: "card" },
  { ref: "", amount: 50.5, paid_date: "2026-03-02", method: "check", reference: "#1042" },
];

const cases: { name: string; invoice: Record<string, unknown>; expected: Record<string, string> }[] = [
  { name: "no tax, no discount", invoice: {}, expected: { subtotal: "359.97", discount: "0.00", tax: "0.00", total: "359.97" } },
  { name: "tax only", invoice: { tax: true }, expected: { discount: "0.00", tax: "31.95", total: "391.92" } },
  {
    name: "percentage before tax",
    invoice: { tax: true, discount_amount: 10, discount_amount_type: "percentage", discount_type: "before_tax" },
    expected: { discount: "36.00", tax: "28.75", total: "352.72" },
  },
  {
    name: "percentage after tax",
    invoice: { tax: true, discount_amount: 10, discount_amount_type: "percentage", discount_type: "after_tax" },
    expected: { discount: "39.19", tax: "31.95", total: "352.73" },
  },
  {
    name: "fixed before tax",
    invoice: { tax: true, discount_amount: "50", discount_amount_type: "fixed_amount", discount_type: "before_tax" },
    expected: { discount: "50.00", tax: "27.51", total: "337.48" },
  },
  {
    name: "fixed after tax",
    invoice: { tax: true, discount_amount: "50.00", discount_amount_type: "fixed_amount", discount_type: "after_tax" },
    expected: { discount: "50.00", tax: "31.95", total: "341.92" },
  },
  {
    name: "tax-exempt with a tax row",
    invoice: { tax: true, tax_exempt: true, discount_amount: 10, discount_amount_type: "percentage" },
    expected: { discount: "36.00", tax: "0.00", total: "323.97" },
  },
  {
    name: "fixed before tax larger than the subtotal",
    invoice: { tax: true, discount_amount: 500, discount_amount_type: "fixed_amount", discount_type: "before_tax" },
    expected: { discount: "359.97", tax: "0.00", total: "0.00" },
  },
  {
    name: "fixed after tax larger than subtotal + tax",
    invoice: { tax: true, discount_amount: 500, discount_amount_type: "fixed_amount", discount_type: "after_tax" },
    expected: { discount: "391.92", tax: "31.95", total: "0.00" },
  },
  {
    name: "fixed after tax between subtotal and subtotal + tax is not capped at the subtotal",
    invoice: { tax: true, discount_amount: "370.00", discount_amount_type: "fixed_amount", discount_type: "after_tax" },
    expected: { discount: "370.00", tax: "31.95", total: "21.92" },
  },
  {
    name: "100 % discount",
    invoice: { tax: true, discount_amount: 100, discount_amount_type: "percentage" },
    expected: { discount: "359.97", tax: "0.00", total: "0.00" },
  },
];

describe("invoice totals (GET /orders/{id} and the list agree)", () => {
  it("follows discount type, amount type, tax-exempt and the fixed-discount cap", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "c", company_name: "Northside Print Co." }],
      taxes: [{ ref: "tax", name: "NYC sales tax", rate: "8.875" }],
      orders: cases.map((k, i) => {
        const { tax, ...invoice } = k.invoice;
        return {
          ref: `o${i}`,
          client_ref: "c",
          title: k.name,
          invoice: { ...invoice, ...(tax ? { tax_ref: "tax" } : {}) },
          items: items.map((it, j) => ({ ...it, ref: `o${i}-item${j}` })),
          payments: payments.map((p, j) => ({ ...p, ref: `o${i}-pay${j}` })),
        };
      }),
    });
    const list = (await co.get("/orders?per_page=100")).body.data as any[];
    for (const [i, k] of cases.entries()) {
      const res = await co.get(`/orders/${ids[`o${i}`]}`);
      expect(res.status).toBe(200);
      const totals = res.body.invoice.totals;
      expect(totals, k.name).toMatchObject({ subtotal: "359.97", amount_paid: "150.50", ...k.expected });
      const balance = (Math.round(Number(k.expected.total) * 100) - 15050) / 100;
      expect(totals.balance_due, k.name).toBe(balance.toFixed(2));
      const row = list.find((o) => o.id === ids[`o${i}`]);
      expect({ total: row.total, amount_paid: row.amount_paid, balance_due: row.balance_due }, k.name).toEqual({
        total: totals.total,
        amount_paid: totals.amount_paid,
        balance_due: totals.balance_due,
      });
    }
  });

  it("rounds half-up to cents at the line, the discount and the tax, exactly (no float drift)", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "c", company_name: "Rounding Ltd" }],
      taxes: [{ ref: "t", name: "Half", rate: "10" }],
      orders: [
        {
          ref: "o",
          client_ref: "c",
          title: "Rounding",
          // 2.5 × 1.01 = 2.525 → 2.53 (banker's rounding would give 2.52); 3 × 0.10 = 0.30 exactly.
          items: [
            { ref: "i1", title: "a", quantity: 2.5, unit_price: "1.01" },
            { ref: "i2", title: "b", quantity: 3, unit_price: 0.1 },
          ],
          // 50 % of 2.83 = 1.415 → 1.42; tax 10 % of 1.41 = 0.141 → 0.14.
          invoice: { discount_amount: 50, tax_ref: "t" },
          payments: [
            { ref: "p1", amount: 0.1 },
            { ref: "p2", amount: 0.2 },
          ],
        },
      ],
    });
    const { body } = await co.get(`/orders/${ids.o}`);
    expect(body.invoice_items.map((i: any) => i.amount)).toEqual(["2.53", "0.30"]);
    expect(body.invoice.totals).toEqual({
      subtotal: "2.83",
      discount: "1.42",
      tax: "0.14",
      total: "1.55",
      amount_paid: "0.30",
      balance_due: "1.25",
    });
  });

  it("ignores soft-deleted items and payments, and shows overpayment as a negative balance", async () => {
    const co = await newCompany();
    const ids = await co.load({
      clients: [{ ref: "c", company_name: "Overpaid Inc" }],
      orders: [
        {
          ref: "o",
          client_ref: "c",
          title: "Embroidered caps",
          items: [
            { ref: "keep", title: "Cap", quantity: 10, unit_price: "15.00" },
            { ref: "gone", title: "Old line", quantity: 1, unit_price: "999.00" },
          ],
          payments: [
            { ref: "p1", amount: "200.00" },
            { ref: "p2", amount: "1000.00" },
          ],
        },
      ],
    });
    await sql("update invoice_items set deleted_at = now() where id = $1", [ids.gone]);
    await sql("update payments set deleted_at = now() where id = $1", [ids.p2]);
    const { body } = await co.get(`/orders/${ids.o}`);
    expect(body.invoice_items.map((i: any) => i.id)).toEqual([ids.keep]);
    expect(body.payments.map((p: any) => p.id)).toEqual([ids.p1]);
    expect(body.invoice.totals).toMatchObject({ subtotal: "150.00", total: "150.00", amount_paid: "200.00", balance_due: "-50.00" });
    const [row] = (await co.get("/orders")).body.data;
    expect(row).toMatchObject({ id: ids.o, total: "150.00", amount_paid: "200.00", balance_due: "-50.00" });
  });
});
