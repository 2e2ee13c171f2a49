import Big from "big.js";
import { orderedSizes } from "../domain/sizes";
import { invoiceTotals, lineAmount } from "../domain/totals";
import type { AccountingUpdate, DiscountState, TaxState } from "./payload";

/**
 * Local orders → QuickBooks Online v3 invoice and customer bodies. Pure functions; amounts are
 * computed by the orders' totals (exact decimals) and sent as JSON numbers of cents.
 */

export interface InvoiceSnapshot {
  title: string;
  /** Project description → PrivateNote. */
  description: string | null;
  dueDate: string | null;
  clientNotes: string | null;
  /** YYYY-MM-DD (UTC) the invoice was created → TxnDate. */
  txnDate: string;
  discount: DiscountState;
  tax: TaxState;
  items: { title: string; description: string | null; quantity: string; unitPrice: string; sizes: Record<string, number> | null }[];
}

export interface ClientSnapshot {
  id: number;
  companyName: string;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  website: string | null;
  phone: string | null;
  taxExempt: boolean;
}

type Line = Record<string, unknown>;
const limit = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

const taxable = (tax: TaxState) => tax.tax_id !== null && tax.rate !== null && !tax.tax_exempt;

function lineDescription(item: InvoiceSnapshot["items"][number]) {
  const sizes =
    item.sizes &&
    Object.entries(orderedSizes(item.sizes))
      .map(([size, n]) => `${size}×${n}`)
      .join(", ");
  return limit([item.title, item.description, sizes && `(${sizes})`].filter(Boolean).join(" — "), 4000);
}

/**
 * The invoice's lines: one sales line per item (taxable unless no tax applies), the discount line,
 * and the tax total. Amounts come from the orders' own totals (`invoiceTotals`), so the accounting
 * system receives exactly the subtotal, discount and tax that GET /orders/{id} shows. An invoice
 * without items gets a description-only line (the service requires at least one line).
 */
export function invoiceAmounts(s: Pick<InvoiceSnapshot, "title" | "items" | "discount" | "tax">) {
  const taxCode = { value: taxable(s.tax) ? "TAX" : "NON" };
  const amounts = s.items.map((item) => ({ quantity: item.quantity, unit_price: item.unitPrice }));
  const totals = invoiceTotals(
    {
      discountAmount: s.discount.amount,
      discountAmountType: s.discount.amount_type,
      discountType: s.discount.discount_type,
      taxExempt: s.tax.tax_exempt,
      taxRate: taxable(s.tax) ? s.tax.rate : null,
    },
    amounts,
    [],
  );
  const lines: Line[] = s.items.map((item, i) => ({
    DetailType: "SalesItemLineDetail",
    Amount: Number(lineAmount(amounts[i]).toFixed(2)),
    Description: lineDescription(item),
    SalesItemLineDetail: { Qty: Number(item.quantity), UnitPrice: Number(item.unitPrice), TaxCodeRef: taxCode },
  }));
  if (!lines.length) lines.push({ DetailType: "DescriptionOnly", Description: limit(s.title, 4000), DescriptionLineDetail: {} });

  if (new Big(totals.discount).gt(0)) {
    // QuickBooks applies a percent-based discount to the pre-tax subtotal. That is our before_tax
    // base; after_tax takes the percentage of subtotal + tax, so that amount is sent as fixed.
    const percent = s.discount.amount_type === "percentage" && s.discount.discount_type === "before_tax";
    lines.push({
      DetailType: "DiscountLineDetail",
      Amount: Number(totals.discount),
      DiscountLineDetail: percent ? { PercentBased: true, DiscountPercent: Number(s.discount.amount) } : { PercentBased: false },
    });
  }
  return {
    Line: lines,
    ApplyTaxAfterDiscount: s.discount.discount_type === "before_tax",
    TxnTaxDetail: { TotalTax: Number(totals.tax) },
  };
}

export function invoiceCreateBody(s: InvoiceSnapshot, customerId: string) {
  return {
    CustomerRef: { value: customerId },
    TxnDate: s.txnDate,
    ...(s.dueDate ? { DueDate: s.dueDate } : {}),
    ...(s.description ? { PrivateNote: limit(s.description, 4000) } : {}),
    ...(s.clientNotes ? { CustomerMemo: { value: limit(s.clientNotes, 1000) } } : {}),
    ...invoiceAmounts(s),
  };
}

/**
 * The sparse update for one recorded change. Discount, tax and item changes resend the whole `Line`
 * array (a sparse update replaces all lines) from the current items, with the discount and tax
 * state recorded in the change (else the current one). A cleared due date is left as is: the service cannot unset it.
 */
export function invoiceUpdateFields(changes: AccountingUpdate, s: InvoiceSnapshot, customerId?: string) {
  const fields: Record<string, unknown> = {};
  if ("private_note" in changes) fields.PrivateNote = limit(changes.private_note ?? "", 4000);
  if (changes.due_date) fields.DueDate = changes.due_date;
  if (customerId) fields.CustomerRef = { value: customerId };
  if ("customer_memo" in changes) fields.CustomerMemo = { value: limit(changes.customer_memo ?? "", 1000) };
  if (changes.discount || changes.tax || changes.lines) {
    Object.assign(fields, invoiceAmounts({ ...s, discount: changes.discount ?? s.discount, tax: changes.tax ?? s.tax }));
  }
  return fields;
}

export function customerBody(c: ClientSnapshot, displayName = c.companyName) {
  return {
    DisplayName: limit(displayName, 500),
    CompanyName: limit(c.companyName, 100),
    ...(c.firstName ? { GivenName: limit(c.firstName, 100) } : {}),
    ...(c.lastName ? { FamilyName: limit(c.lastName, 100) } : {}),
    ...(c.email ? { PrimaryEmailAddr: { Address: c.email } } : {}),
    ...(c.phone ? { PrimaryPhone: { FreeFormNumber: limit(c.phone, 30) } } : {}),
    ...(c.website ? { WebAddr: { URI: limit(c.website, 1000) } } : {}),
    Taxable: !c.taxExempt,
  };
}
