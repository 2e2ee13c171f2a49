import { type AccountingUpdate, discountState, taxState } from "../../accounting/payload";
import type { invoices } from "../../db/schema/orders";
import type { OrderPatch } from "./schema";

/**
 * A PATCH in accounting terms (the outbox `update` payload): only the fields this request sent that the
 * accounting system knows about; discount and tax carry their full state after the change.
 * Returns undefined when nothing accounting-relevant was sent (e.g. only `title` or `status_id`): no row then.
 */
export function accountingUpdate(
  body: OrderPatch,
  invoice: typeof invoices.$inferSelect,
  taxRate: string | null,
): AccountingUpdate | undefined {
  const changes: AccountingUpdate = {};
  if (body.description !== undefined) changes.private_note = body.description;
  if (body.deadline !== undefined) changes.due_date = body.deadline;
  if (body.client_id !== undefined) changes.client_id = body.client_id;
  if (body.client_notes !== undefined) changes.customer_memo = body.client_notes;
  if (body.discount_amount !== undefined || body.discount_amount_type !== undefined || body.discount_type !== undefined) {
    changes.discount = discountState(invoice);
  }
  if (body.tax_id !== undefined || body.tax_exempt !== undefined) {
    changes.tax = taxState(invoice, taxRate);
  }
  return Object.keys(changes).length ? changes : undefined;
}
