import { type SQL, sql } from "drizzle-orm";
import { companies } from "../db/schema/companies";
import type { invoices } from "../db/schema/orders";
import { plainDecimal } from "../platform/money";

/**
 * The contract between order changes (writers) and accounting delivery (the consumer).
 * A row describes one accounting operation on the order's default invoice; it is written in the
 * same transaction (or single statement) as the change, and only when sync applies (see `syncApplies`).
 *
 * - create: the invoice is created remotely from its current state (client as customer, items as lines).
 * - update: a sparse update; `changes` holds only what this PATCH changed, in accounting terms:
 *     private_note  ← project description        due_date     ← deadline
 *     client_id     ← new customer (local id)    customer_memo ← client_notes
 *     discount      ← full discount state after the change, when any discount field changed
 *     tax           ← full tax state after the change, when tax_id / tax_exempt changed
 *     lines         ← true when an item was added, changed, moved or removed (the lines are resent from the current items)
 * - delete: the remote invoice is deleted.
 */
export type DiscountState = {
  amount: string;
  amount_type: "percentage" | "fixed_amount";
  discount_type: "before_tax" | "after_tax";
};
export type TaxState = { tax_id: number | null; rate: string | null; tax_exempt: boolean };

export type AccountingChange =
  | { operation: "create"; payload: Record<string, never> }
  | {
      operation: "update";
      payload: {
        changes: {
          private_note?: string | null;
          due_date?: string | null;
          client_id?: number;
          customer_memo?: string | null;
          discount?: DiscountState;
          tax?: TaxState;
          lines?: true;
        };
      };
    }
  | { operation: "delete"; payload: Record<string, never> };

/** The `changes` of an update row. */
export type AccountingUpdate = Extract<AccountingChange, { operation: "update" }>["payload"]["changes"];

type InvoiceTerms = Pick<typeof invoices.$inferSelect, "discountAmount" | "discountAmountType" | "discountType" | "taxId" | "taxExempt">;

/** The invoice row's discount (its check constraints keep the two columns to these values). */
export const discountState = (invoice: InvoiceTerms): DiscountState => ({
  amount: invoice.discountAmount,
  amount_type: invoice.discountAmountType as DiscountState["amount_type"],
  discount_type: invoice.discountType as DiscountState["discount_type"],
});

/** The invoice row's tax, given the rate of its tax (null: none, and then no tax id either). */
export const taxState = (invoice: InvoiceTerms, rate: string | null): TaxState => ({
  tax_id: rate === null ? null : invoice.taxId,
  rate: rate === null ? null : plainDecimal(rate),
  tax_exempt: invoice.taxExempt,
});

/**
 * The request's `quickbooks_enabled` when sent, otherwise the company-level flag (a boolean, or the SQL that
 * reads it when the decision is part of a single statement).
 */
export const syncApplies = <T = boolean>(requestFlag: boolean | undefined, companyFlag: T): boolean | T => requestFlag ?? companyFlag;

/** The company's accounting-sync default, as a scalar subquery of a larger statement (`syncApplies`' company flag). */
export const companySyncSql = (companyId: number | SQL) =>
  sql<boolean>`coalesce((select ${companies.accountingSyncEnabled} from ${companies} where ${companies.id} = ${companyId}), false)`;
