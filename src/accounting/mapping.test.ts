import Big from "big.js";
import { describe, expect, it } from "vitest";
import { invoiceTotals } from "../domain/totals";
import { type InvoiceSnapshot, invoiceAmounts, invoiceUpdateFields } from "./mapping";
import type { DiscountState } from "./payload";

type Line = { DetailType: string; Amount?: number; DiscountLineDetail?: { PercentBased: boolean; DiscountPercent?: number } };

/**
 * The total QuickBooks Online computes for the amounts we send: a percent-based discount line is
 * taken of the pre-tax subtotal of the sales lines, any other discount line counts its Amount, and
 * the tax is the TxnTaxDetail.TotalTax we send.
 */
function quickBooksTotal(body: ReturnType<typeof invoiceAmounts>) {
  const lines = body.Line as Line[];
  const subtotal = lines.filter((l) => l.DetailType === "SalesItemLineDetail").reduce((sum, l) => sum.plus(l.Amount!), new Big(0));
  const line = lines.find((l) => l.DetailType === "DiscountLineDetail");
  const discount = !line
    ? new Big(0)
    : line.DiscountLineDetail!.PercentBased
      ? subtotal.times(line.DiscountLineDetail!.DiscountPercent!).div(100).round(2, Big.roundHalfUp)
      : new Big(line.Amount!);
  return subtotal.minus(discount).plus(body.TxnTaxDetail.TotalTax).toFixed(2);
}

const items: InvoiceSnapshot["items"] = [
  { title: "Gildan 5000 tee", description: null, quantity: "3", unitPrice: "12.50", sizes: null },
  { title: "Hoodie embroidery", description: null, quantity: "2.5", unitPrice: "9.99", sizes: null },
];
const tax = { tax_id: 1, rate: "8.875", tax_exempt: false };
const snapshot = (discount: DiscountState) => ({ title: "Team tees", items, discount, tax });
const ourTotals = (discount: DiscountState) =>
  invoiceTotals(
    {
      discountAmount: discount.amount,
      discountAmountType: discount.amount_type,
      discountType: discount.discount_type,
      taxExempt: false,
      taxRate: tax.rate,
    },
    items.map((i) => ({ quantity: i.quantity, unit_price: i.unitPrice })),
    [],
  );
const discountLine = (body: ReturnType<typeof invoiceAmounts>) => (body.Line as Line[]).find((l) => l.DetailType === "DiscountLineDetail");

describe("invoiceAmounts: the discount line", () => {
  it("sends a before-tax percentage as percent-based (QuickBooks takes it of the pre-tax subtotal, as we do)", () => {
    const body = invoiceAmounts(snapshot({ amount: "10", amount_type: "percentage", discount_type: "before_tax" }));
    // subtotal 62.48; 10 % = 6.25; tax 8.875 % of 56.23 = 4.99
    expect(discountLine(body)).toEqual({
      DetailType: "DiscountLineDetail",
      Amount: 6.25,
      DiscountLineDetail: { PercentBased: true, DiscountPercent: 10 },
    });
    expect(body).toMatchObject({ ApplyTaxAfterDiscount: true, TxnTaxDetail: { TotalTax: 4.99 } });
  });

  it("sends an after-tax percentage as the computed amount, not percent-based", () => {
    const body = invoiceAmounts(snapshot({ amount: "10", amount_type: "percentage", discount_type: "after_tax" }));
    // tax 8.875 % of 62.48 = 5.55; 10 % of (62.48 + 5.55) = 6.80 (percent-based, QuickBooks would take 6.25)
    expect(discountLine(body)).toEqual({ DetailType: "DiscountLineDetail", Amount: 6.8, DiscountLineDetail: { PercentBased: false } });
    expect(body).toMatchObject({ ApplyTaxAfterDiscount: false, TxnTaxDetail: { TotalTax: 5.55 } });
  });

  const cases: DiscountState[] = [
    { amount: "10", amount_type: "percentage", discount_type: "before_tax" },
    { amount: "10", amount_type: "percentage", discount_type: "after_tax" },
    { amount: "12.5", amount_type: "percentage", discount_type: "after_tax" },
    { amount: "100", amount_type: "percentage", discount_type: "after_tax" },
    { amount: "5.00", amount_type: "fixed_amount", discount_type: "before_tax" },
    { amount: "5.00", amount_type: "fixed_amount", discount_type: "after_tax" },
    { amount: "0", amount_type: "percentage", discount_type: "after_tax" },
  ];
  it.each(cases)("QuickBooks' total equals ours: $amount $amount_type $discount_type", (discount) => {
    const body = invoiceAmounts(snapshot(discount));
    const ours = ourTotals(discount);
    expect(quickBooksTotal(body)).toBe(ours.total);
    expect(discountLine(body)?.Amount ?? 0).toBe(Number(ours.discount));
  });
});

describe("invoiceUpdateFields: an item change", () => {
  const full: InvoiceSnapshot = {
    ...snapshot({ amount: "10", amount_type: "percentage", discount_type: "before_tax" }),
    description: null,
    dueDate: null,
    clientNotes: null,
    txnDate: "2026-12-01",
  };
  it("resends the whole line array from the current items, with the current discount and tax", () => {
    const fields = invoiceUpdateFields({ lines: true }, full);
    expect(fields).toEqual(invoiceAmounts(full));
    expect((fields.Line as Line[]).filter((l) => l.DetailType === "SalesItemLineDetail")).toHaveLength(items.length);
  });
  it("sends no lines for a change that does not touch them", () => {
    expect(invoiceUpdateFields({ customer_memo: "Hi" }, full)).toEqual({ CustomerMemo: { value: "Hi" } });
  });
});
