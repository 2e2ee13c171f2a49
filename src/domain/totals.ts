import Big from "big.js";
import { toCents } from "../platform/money";

/**
 * Invoice totals: the ONE place they are computed (GET /orders/{id}, the list, POST and PATCH all call
 * `invoiceTotals`). Exact decimal arithmetic (big.js), never floating point.
 *
 * Rounding: every rounded amount is rounded half-up (away from zero) to cents, at these points only:
 *   line amount   = round(quantity × unit_price)
 *   subtotal      = Σ line amounts (live items)
 *   percentage discount = round(base × percent / 100);  fixed discount = min(amount, base)
 *   tax           = round(taxable × rate / 100)
 *
 * before_tax (default): discount applies to the subtotal, tax to (subtotal − discount), total = subtotal − discount + tax.
 * after_tax:            tax applies to the subtotal, discount to (subtotal + tax),       total = subtotal + tax − discount.
 * A tax-exempt invoice or one without a tax row has tax 0. A discount never exceeds the base it applies to,
 * so the total is never negative. balance_due = total − amount_paid (negative when overpaid: a credit).
 */
export interface InvoiceTerms {
  discountAmount: string;
  discountAmountType: string; // 'percentage' | 'fixed_amount'
  discountType: string; // 'before_tax' | 'after_tax'
  taxExempt: boolean;
  /** Percent rate of the invoice's tax row, or null when the invoice has no tax. */
  taxRate: string | null;
}
export interface LineAmounts {
  quantity: string;
  unit_price: string;
}

export interface InvoiceTotals {
  subtotal: string;
  discount: string;
  tax: string;
  total: string;
  amount_paid: string;
  balance_due: string;
}

const min = (a: Big, b: Big) => (a.lt(b) ? a : b);

/** quantity × unit_price, rounded half-up to cents. */
export const lineAmount = (line: LineAmounts) => toCents(new Big(line.quantity).times(line.unit_price));

export function invoiceTotals(terms: InvoiceTerms, lines: LineAmounts[], paymentAmounts: string[]): InvoiceTotals {
  const subtotal = lines.reduce((sum, line) => sum.plus(lineAmount(line)), new Big(0));
  const rate = terms.taxExempt || terms.taxRate === null ? new Big(0) : new Big(terms.taxRate);
  const taxOn = (base: Big) => toCents(base.times(rate).div(100));
  const discountOn = (base: Big) => {
    const amount = new Big(terms.discountAmount);
    const raw = terms.discountAmountType === "fixed_amount" ? amount : toCents(base.times(amount).div(100));
    // Never more than the base: a 150 % or an oversized fixed discount stops at zero.
    return min(raw, base.lt(0) ? new Big(0) : base);
  };

  let discount: Big;
  let tax: Big;
  if (terms.discountType === "after_tax") {
    tax = taxOn(subtotal);
    discount = discountOn(subtotal.plus(tax));
  } else {
    discount = discountOn(subtotal);
    tax = taxOn(subtotal.minus(discount));
  }
  const total = subtotal.minus(discount).plus(tax);
  const paid = paymentAmounts.reduce((sum, amount) => sum.plus(amount), new Big(0));
  return {
    subtotal: subtotal.toFixed(2),
    discount: discount.toFixed(2),
    tax: tax.toFixed(2),
    total: total.toFixed(2),
    amount_paid: paid.toFixed(2),
    balance_due: total.minus(paid).toFixed(2),
  };
}
