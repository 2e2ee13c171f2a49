import Big from "big.js";
import type { AccountingChange, DiscountState, TaxState } from "./outbox";

/**
 * Local orders → QuickBooks Online v3 invoice and customer bodies. Pure functions; amounts are
 * computed with exact decimals (big.js) and sent as JSON numbers rounded to cents.
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
const cents = (v: Big) => Number(v.round(2, Big.roundHalfUp).toFixed(2));
const limit = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

const taxable = (tax: TaxState) => tax.tax_id !== null && tax.rate !== null && !tax.tax_exempt;

function lineDescription(item: InvoiceSnapshot["items"][number]) {
  const sizes = item.sizes && Object.entries(item.sizes).map(([size, n]) => `${size}×${n}`).join(", ");
  return limit([item.title, item.description, sizes && `(${sizes})`].filter(Boolean).join(" — "), 4000);
}

/**
 * The invoice's lines: one sales line per item (taxable unless no tax applies), the discount line,
 * and the tax total. An invoice without items gets a description-only line (the service requires
 * at least one line), so an order syncs before its items are in.
 */
export function invoiceAmounts(s: Pick<InvoiceSnapshot, "title" | "items" | "discount" | "tax">) {
  const taxCode = { value: taxable(s.tax) ? "TAX" : "NON" };
  let subtotal = new Big(0);
  const lines: Line[] = s.items.map((item) => {
    const amount = new Big(item.quantity).times(item.unitPrice).round(2, Big.roundHalfUp);
    subtotal = subtotal.plus(amount);
    return {
      DetailType: "SalesItemLineDetail",
      Amount: cents(amount),
      Description: lineDescription(item),
      SalesItemLineDetail: { Qty: Number(item.quantity), UnitPrice: Number(item.unitPrice), TaxCodeRef: taxCode },
    };
  });
  if (!lines.length) lines.push({ DetailType: "DescriptionOnly", Description: limit(s.title, 4000), DescriptionLineDetail: {} });

  const percent = s.discount.amount_type === "percentage";
  // A fixed discount never exceeds what it applies to.
  const requested = percent ? subtotal.times(s.discount.amount).div(100).round(2, Big.roundHalfUp) : new Big(s.discount.amount);
  const discount = requested.gt(subtotal) ? subtotal : requested;
  if (discount.gt(0)) {
    lines.push({
      DetailType: "DiscountLineDetail",
      Amount: cents(discount),
      DiscountLineDetail: percent ? { PercentBased: true, DiscountPercent: Number(s.discount.amount) } : { PercentBased: false },
    });
  }
  const beforeTax = s.discount.discount_type === "before_tax";
  const taxBase = beforeTax ? subtotal.minus(discount) : subtotal;
  const totalTax = taxable(s.tax) ? taxBase.times(s.tax.rate!).div(100) : new Big(0);
  return { Line: lines, ApplyTaxAfterDiscount: beforeTax, TxnTaxDetail: { TotalTax: cents(totalTax) } };
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

type UpdateChanges = Extract<AccountingChange, { operation: "update" }>["payload"]["changes"];

/**
 * The sparse update for one recorded change. Discount and tax changes resend the whole `Line`
 * array (a sparse update replaces all lines) from the current items, with the discount and tax
 * state recorded in the change. A cleared due date is left as is: the service cannot unset it.
 */
export function invoiceUpdateFields(changes: UpdateChanges, s: InvoiceSnapshot, customerId?: string) {
  const fields: Record<string, unknown> = {};
  if ("private_note" in changes) fields.PrivateNote = limit(changes.private_note ?? "", 4000);
  if (changes.due_date) fields.DueDate = changes.due_date;
  if (customerId) fields.CustomerRef = { value: customerId };
  if ("customer_memo" in changes) fields.CustomerMemo = { value: limit(changes.customer_memo ?? "", 1000) };
  if (changes.discount || changes.tax) {
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
